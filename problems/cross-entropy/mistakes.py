"""Known mistakes for cross-entropy, as small wrong implementations (each with cross_entropy's signature).

Imported only in the judge's process (like reference.py).  Each computes in the logits' own float dtype, as
learners' code does when it does not cast, and lets inf and NaN come out where the learner's would.
"""

import numpy as np


def _float(a):
    a = np.asarray(a)
    return a if a.dtype.kind == "f" else a.astype(np.float64)


def _rows(logits):
    return np.arange(np.shape(logits)[0])


def _log_softmax(logits, axis=1):
    top = logits.max(axis=axis, keepdims=True)
    return logits - top - np.log(np.exp(logits - top).sum(axis=axis, keepdims=True))


def naive_softmax(logits, targets):
    """-log(exp(l_t) / sum(exp(l))) as written: exp overflows to inf, inf / inf = NaN."""
    logits = _float(logits)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        return np.mean(-np.log(p[_rows(logits), targets]))


def log_of_softmax(logits, targets):
    """A stable softmax, then its log: a target probability that underflows to 0 gives log(0) = -inf."""
    logits = _float(logits)
    with np.errstate(divide="ignore"):
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        return np.mean(-np.log(p[_rows(logits), targets]))


def probability_clip(logits, targets):
    """The probabilities clipped to [1e-7, 1 - 1e-7] before the log (Keras' epsilon)."""
    logits = _float(logits)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = np.clip(e / e.sum(axis=1, keepdims=True), 1e-7, 1 - 1e-7)
    return np.mean(-np.log(p[_rows(logits), targets]))


def sum_not_mean(logits, targets):
    logits = _float(logits)
    return np.sum(-_log_softmax(logits)[_rows(logits), targets])


def sign_flipped(logits, targets):
    """The mean log-probability, without the minus sign."""
    logits = _float(logits)
    return np.mean(_log_softmax(logits)[_rows(logits), targets])


def all_pairs(logits, targets):
    """logp[:, targets] picks every row's log-probability at every target: an (N, N) block, then its mean."""
    logits = _float(logits)
    return np.mean(-_log_softmax(logits)[:, targets])


def all_classes(logits, targets):
    """The mean of -log p over every class, the targets never used."""
    logits = _float(logits)
    return np.mean(-_log_softmax(logits))


def softmax_over_rows(logits, targets):
    """The softmax normalised down each column (axis 0) instead of along each row."""
    logits = _float(logits)
    return np.mean(-_log_softmax(logits, axis=0)[_rows(logits), targets])


def per_row_losses(logits, targets):
    """Each row's loss, returned without taking the mean: an array of shape (N,), not one number."""
    logits = _float(logits)
    return -_log_softmax(logits)[_rows(logits), targets]
