"""Compile error: torch is not among the allowed imports."""
import torch


def layer_norm(x, gamma, beta, eps=1e-5):
    t = torch.nn.functional.layer_norm(torch.from_numpy(x), x.shape[-1:], torch.from_numpy(gamma),
                                       torch.from_numpy(beta), eps)
    return t.numpy()
