"""Runtime error: expects the state as a dict (m["exp_avg"]), as in a framework's optimizer state."""
import numpy as np


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    exp_avg, exp_avg_sq = m["exp_avg"], v["exp_avg_sq"]
    exp_avg = beta1 * exp_avg + (1 - beta1) * grad
    exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * grad ** 2
    return param - lr * exp_avg / (np.sqrt(exp_avg_sq) + eps), exp_avg, exp_avg_sq
