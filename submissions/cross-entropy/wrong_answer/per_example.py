"""Wrong answer: returns every example's loss (reduction='none'), not their mean."""
# diagnosis: per_row_losses
import numpy as np


def cross_entropy(logits, targets):
    logits = np.asarray(logits, dtype=np.float64)
    m = logits.max(axis=1, keepdims=True)
    log_z = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return log_z - logits[np.arange(logits.shape[0]), targets]
