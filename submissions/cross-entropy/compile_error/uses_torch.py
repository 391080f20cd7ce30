"""Compile error: torch is not among the allowed imports."""
import torch


def cross_entropy(logits, targets):
    return torch.nn.functional.cross_entropy(torch.from_numpy(logits), torch.from_numpy(targets)).item()
