"""Time limit exceeded: every weight computed on its own, its denominator summed again in Python each time."""
import math

import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    lead, (tq, dk), tk = q.shape[:-2], q.shape[-2:], k.shape[-2]
    allowed = np.broadcast_to(True if mask is None else mask, lead + (tq, tk))
    out = np.zeros(lead + (tq, v.shape[-1]))
    for b in np.ndindex(*lead):
        qb, kb = q[b].tolist(), k[b].tolist()
        for i in range(tq):
            def score(j):
                return sum(qb[i][d] * kb[j][d] for d in range(dk)) / math.sqrt(dk)
            keys = [j for j in range(tk) if allowed[b + (i, j)]]
            if not keys:
                continue
            top = max(score(j) for j in keys)
            for j in keys:
                weight = math.exp(score(j) - top) / sum(math.exp(score(m) - top) for m in keys)
                out[b + (i,)] += weight * v[b + (j,)]
    return out
