"""Utilities beside the core library: ``cygrad.utils.data`` (datasets, samplers,
``DataLoader``), available after ``import cygrad`` as ``torch.utils.data`` is after
``import torch``.

Examples
--------
>>> import cygrad.utils.data
>>> cygrad.utils.data.default_collate([1, 2]).tolist()
[1, 2]
"""
from . import data  # noqa: E402,F401
from . import checkpoint  # noqa: E402,F401  (cygrad.utils.checkpoint, as torch.utils.checkpoint)
