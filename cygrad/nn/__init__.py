"""cygrad.nn: neural-network building blocks.

For now only ``cygrad.nn.functional`` exists, re-exporting the functional ops the
core already has under PyTorch's names; ``Module``, layers, losses and ``init``
come with the nn issue.
"""
from . import functional  # noqa: F401
