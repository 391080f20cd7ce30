"""Compile error: optax is not among the allowed imports."""
import optax


def adam_step(param, grad, m, v, t, lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8):
    return optax.adam(lr, beta1, beta2, eps).update(grad, (m, v), param)
