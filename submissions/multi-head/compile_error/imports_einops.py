"""Compile error: einops is not among the allowed imports."""
from einops import rearrange


def split_heads(x, n_heads):
    return rearrange(x, "... t (h d) -> ... h t d", h=n_heads)


def merge_heads(x):
    return rearrange(x, "... h t d -> ... t (h d)")
