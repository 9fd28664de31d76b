"""Composable function transforms, as ``torch.func``.
"""
from ._vmap import vmap

__all__ = ["vmap"]
