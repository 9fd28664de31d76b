"""How tensors print: ``repr(t)`` reads like PyTorch's ``tensor([1.5000, 2.0000])``.

Printing happens in three steps:

1. Look at (a sample of) the values and choose one *element format* for the whole
   tensor, so that columns line up: integers as they are; floats either as integers
   with a trailing dot (``2.``), fixed point with ``precision`` decimals (``1.5000``)
   or scientific (``1.0000e+10``) when the magnitudes span too wide a range.
2. Lay the formatted elements out as nested brackets, wrapping rows at ``linewidth``
   and, for big tensors (more than ``threshold`` elements), showing only ``edgeitems``
   entries at both ends of each dimension with ``...`` in between.
3. Append suffixes that the values alone don't tell: a non-default ``dtype``, the
   ``device``, ``grad_fn``/``requires_grad``.

All values are read through a NumPy view of the tensor (``_C._ndarray``); nothing here
writes to a tensor.
"""
import contextlib
import math

import numpy as np

from ._core import tensor as _C
from ._core.dtype import get_default_dtype, int64 as _int64, bool_ as _bool

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "tensor_repr"]


class _PrintOptions:
    """The current print options (module-level singleton ``_OPTS``)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


_OPTS = _PrintOptions()

# (precision, threshold, edgeitems, linewidth) for each named profile.
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set how tensors print, as ``torch.set_printoptions``.

    Parameters
    ----------
    precision : int, optional
        Digits after the decimal point for floats (default 4).
    threshold : int or float, optional
        Tensors with more elements than this are summarised with ``...`` (default 1000).
    edgeitems : int, optional
        Entries shown at each end of a summarised dimension (default 3).
    linewidth : int, optional
        Characters per line before wrapping (default 80).
    profile : {"default", "short", "full"}, optional
        A preset applied first; the other arguments then override it.
    sci_mode : bool or None, optional
        Force (``True``) or forbid (``False``) scientific notation; ``None`` (the
        default, and what every call without it resets to) picks automatically.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_printoptions(precision=2)
    >>> cygrad.tensor([1.12345])
    tensor([1.12])
    >>> cygrad.set_printoptions(profile="default")
    >>> cygrad.tensor([1.12345])
    tensor([1.1235])
    """
    if profile is not None and profile in _PROFILES:
        (_OPTS.precision, _OPTS.threshold, _OPTS.edgeitems,
         _OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    # Like PyTorch, sci_mode is always assigned: leaving it out means "automatic".
    _OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current print options as a dict.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_printoptions()["precision"]
    4
    """
    return {"precision": _OPTS.precision, "threshold": _OPTS.threshold,
            "edgeitems": _OPTS.edgeitems, "linewidth": _OPTS.linewidth,
            "sci_mode": _OPTS.sci_mode}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager: print options set inside the block, restored after it.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad._printing.printoptions(precision=1):
    ...     print(cygrad.tensor([0.25]))
    tensor([0.2])
    """
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------- element format

class _ElementFormat:
    """One format for every element of a tensor, padded to a common width.

    Built from the values that will be printed (for a summarised tensor, only the
    edges), so that a huge value hidden behind ``...`` does not widen every column.
    """

    def __init__(self, values, is_float):
        self.is_float = is_float
        self.width = 1
        self.style = "int"          # "int": 2. / 7 ; "fixed": 1.5000 ; "sci": 1.5000e+00
        if not is_float:
            for v in set(values.ravel().tolist()):
                self.width = max(self.width, len(str(v)))
            return
        self._choose_float_style(values.ravel().astype(np.float64))

    def _choose_float_style(self, flat):
        p = _OPTS.precision
        # Zeros and non-finite values print the same whatever the style, so only the
        # other values decide it. With none left, floats print as integers ("0.").
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        magnitudes = np.abs(shown)
        lo, hi = magnitudes.min(), magnitudes.max()
        all_integral = bool(np.all(shown == np.ceil(shown)))
        if _OPTS.sci_mode is None:
            use_sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            use_sci = bool(_OPTS.sci_mode)
        distinct = set(shown.tolist())
        # The width is measured in the style chosen above; integral values in fixed
        # notation take one more character for their trailing dot.
        if use_sci:
            self.width = max(len(f"{v:.{p}e}") for v in distinct)
        elif all_integral:
            self.width = max(len(f"{v:.0f}") + 1 for v in distinct)
        else:
            self.width = max(len(f"{v:.{p}f}") for v in distinct)
        self.width = max(self.width, 1)
        self.style = "sci" if use_sci else ("int" if all_integral else "fixed")

    def __call__(self, value):
        if not self.is_float:
            text = str(value)
        elif self.style == "sci":
            text = f"{value:{self.width}.{_OPTS.precision}e}"
        elif self.style == "int":
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{_OPTS.precision}f}"
        return text.rjust(self.width)


class _ComplexFormat:
    """Complex elements as PyTorch prints them: the real parts and the imaginary parts
    each get their own :class:`_ElementFormat`; the real part is padded, the
    imaginary one is not and is joined with its sign (``1.5000-2.j``)."""

    def __init__(self, values):
        self.real = _ElementFormat(values.real, True)
        self.imag = _ElementFormat(values.imag, True)
        self.width = self.real.width + self.imag.width + 1      # the "j"

    def __call__(self, value):
        imag = self.imag(value.imag).lstrip() + "j"
        return self.real(value.real) + ("" if imag[0] in "+-" else "+") + imag


# ----------------------------------------------------------------------------- layout

def _edge_indices(n, edge):
    """Which indices of a dimension of size ``n`` a summarised print shows."""
    if n > 2 * edge:
        return list(range(edge)) + list(range(n - edge, n))
    return list(range(n))


def _summary_values(a):
    """The elements a summarised print of ``a`` shows (they decide the format)."""
    edge = _OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        # a[:0] and a[-0:] together are the whole vector: with edgeitems=0 every value
        # still counts, as in PyTorch.
        return np.concatenate((a[:edge], a[-edge:])) if a.shape[0] > 2 * edge else a
    if edge == 0:
        return a[:0]
    return np.stack([_summary_values(a[i]) for i in _edge_indices(a.shape[0], edge)])


def _format_vector(a, indent, summarize, fmt):
    edge = _OPTS.edgeitems
    per_line = max(1, (_OPTS.linewidth - indent) // (fmt.width + 2))
    if summarize and edge == 0:
        items = ["..."]
    elif summarize and a.shape[0] > 2 * edge:
        items = ([fmt(v) for v in a[:edge].tolist()] + [" ..."]
                 + [fmt(v) for v in a[-edge:].tolist()])
    else:
        items = [fmt(v) for v in a.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _format_nested(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    if a.ndim == 1:
        return _format_vector(a, indent, summarize, fmt)
    edge = _OPTS.edgeitems
    n = a.shape[0]
    if summarize and n > 2 * edge:
        parts = ([_format_nested(a[i], indent + 1, summarize, fmt) for i in range(edge)]
                 + ["..."]
                 + [_format_nested(a[i], indent + 1, summarize, fmt) for i in range(n - edge, n)])
    else:
        parts = [_format_nested(a[i], indent + 1, summarize, fmt) for i in range(n)]
    # Blocks of higher dimensions are separated by (ndim - 1) line breaks.
    sep = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def _host_values(t):
    """A NumPy view (or, for device tensors, a host copy) of ``t``'s values."""
    if t.device.type != "cpu":
        t = t.cpu()
    a = _C._ndarray(t)
    if a.dtype.kind == "V" or a.dtype.name in ("bfloat16", "float16"):
        # Values of half types are exact in float32; formatting works on Python floats.
        a = a.astype(np.float32)
    return a


def _values_str(t, indent):
    a = _host_values(t)
    summarize = t.numel() > _OPTS.threshold
    shown = _summary_values(a) if summarize else a
    if a.dtype.kind == "c":
        fmt = _ComplexFormat(shown)
    else:
        fmt = _ElementFormat(shown, t.is_floating_point())
    return _format_nested(a, indent, summarize, fmt)


# ---------------------------------------------------------------------------- suffixes

def _grad_fn_name(grad_fn):
    name = getattr(grad_fn, "name", None)
    if callable(name):
        name = name()
    if not isinstance(name, str) or not name:
        name = type(grad_fn).__name__
    return name.rsplit("::", 1)[-1]


def _join_suffixes(body, suffixes, indent):
    """Append ``, suffix`` items, moving one to a new line when it would pass linewidth."""
    out = [body]
    # PyTorch counts the current line this way (two more than its length when there is
    # no line break yet); keeping the same count keeps the same wrapping.
    line_len = len(body) - body.rfind("\n") + 1
    for s in suffixes:
        if line_len + len(s) + 2 > _OPTS.linewidth:
            out.append(",\n" + " " * indent + s)
            line_len = indent + len(s)
        else:
            out.append(", " + s)
            line_len += len(s) + 2
    out.append(")")
    return "".join(out)


def _prefix(t):
    from ._tensor import Tensor
    cls = type(t)
    if cls is Tensor or cls.__name__ == "Parameter":
        return "tensor("
    return cls.__name__ + "("


def tensor_repr(t):
    """The string ``repr(t)`` shows, in PyTorch's format.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> cygrad.tensor([1.5, 2.0], dtype=cygrad.float64)
    tensor([1.5000, 2.0000], dtype=cygrad.float64)
    """
    prefix = _prefix(t)
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    dt = t.dtype
    default_float = get_default_dtype()
    default_complex = default_float.to_complex()
    if t.numel() == 0:
        body = "[]"
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        # Without elements nothing shows the dtype, so anything but the default is named.
        if dt != default_float:
            suffixes.append(f"dtype={dt}")
    else:
        if not _OPTS.edgeitems:
            suffixes.append(f"size={tuple(t.shape)}")
        # Integer values print without a dot and booleans as True/False, so int64 and
        # bool (what cygrad.tensor infers) need no dtype suffix.
        if dt not in (default_float, default_complex, _int64, _bool):
            suffixes.append(f"dtype={dt}")
        body = _values_str(t, indent)
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = getattr(t, "_fw_grad", None)
    if isinstance(tangent, _C.TensorBase):
        suffixes.append(f"tangent={tangent!r}")
    return _join_suffixes(prefix + body, suffixes, indent)
