"""Accepted: one query at a time, a plain softmax over the keys it may see."""
import math

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    tq, tk = q.shape[-2], k.shape[-2]
    lead = q.shape[:-2]
    allowed = np.ones(lead + (tq, tk), dtype=bool) if mask is None else np.broadcast_to(mask, lead + (tq, tk))
    out = np.zeros(lead + (tq, v.shape[-1]))
    scale = 1.0 / math.sqrt(q.shape[-1])
    for b in np.ndindex(*lead):
        for i in range(tq):
            keys = np.flatnonzero(allowed[b + (i,)])
            if keys.size == 0:
                continue  # nothing to attend to: the row stays zero
            s = k[b][keys] @ q[b + (i,)] * scale
            e = np.exp(s - s.max())
            out[b + (i,)] = (e / e.sum()) @ v[b][keys]
    return out
