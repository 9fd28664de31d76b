"""``cygrad.utils.tensorboard``: log scalars, histograms, text and hyperparameters for
TensorBoard, as ``torch.utils.tensorboard``.

Needs the ``tensorboard`` package (``pip install cygrad[tensorboard]``); without it,
importing this module raises ImportError saying so.  Event files are written with
TensorBoard's own protocol buffers and record writer, so ``tensorboard --logdir runs``
shows them.

Examples
--------
>>> import tempfile, cygrad
>>> from cygrad.utils.tensorboard import SummaryWriter
>>> with SummaryWriter(tempfile.mkdtemp()) as w:
...     w.add_scalar("loss", 0.5, global_step=1)
"""
try:
    import tensorboard  # noqa: F401
except ImportError as exc:
    raise ImportError("cygrad.utils.tensorboard needs the 'tensorboard' package, which is not "
                      "installed: pip install cygrad[tensorboard]  (or: pip install "
                      "tensorboard)") from exc

from .writer import SummaryWriter  # noqa: E402

__all__ = ["SummaryWriter"]
