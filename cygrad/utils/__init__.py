"""Utilities beside the core library. ``cygrad.utils.data`` (datasets, samplers,
``DataLoader``) is imported explicitly, as in PyTorch: ``import cygrad.utils.data``.

Examples
--------
>>> import cygrad.utils.data
>>> cygrad.utils.data.default_collate([1, 2]).tolist()
[1, 2]
"""
