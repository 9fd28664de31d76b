"""``finfo`` and ``iinfo``: the numeric limits of a dtype, with PyTorch's attributes,
and the ``layout`` / ``memory_format`` objects (``cygrad.strided``,
``cygrad.contiguous_format``...).

Examples
--------
>>> import cygrad
>>> cygrad.finfo(cygrad.float16).max, cygrad.iinfo(cygrad.int8).min
(65504.0, -128)
"""
from ._core import dtype as _dt

__all__ = ["finfo", "iinfo", "layout", "strided", "memory_format", "contiguous_format",
           "preserve_format", "channels_last", "channels_last_3d", "legacy_contiguous_format"]

# bits, mantissa bits (eps = 2**-mantissa), min normal exponent, max, decimal resolution
_FLOATS = {
    "float16": (16, 10, -14, 65504.0, 1e-3),
    "bfloat16": (16, 7, -126, (2 - 2 ** -7) * 2.0 ** 127, 1e-2),
    "float32": (32, 23, -126, (2 - 2 ** -23) * 2.0 ** 127, 1e-6),
    "float64": (64, 52, -1022, (2 - 2 ** -52) * 2.0 ** 1023, 1e-15),
}
_COMPLEX_PART = {"complex64": "float32", "complex128": "float64"}


class finfo:
    """Machine limits of a floating-point (or complex) dtype, as ``torch.finfo``:
    ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` and ``dtype`` (a string). A complex dtype gives its real part's
    limits; no argument means the default dtype.

    Examples
    --------
    >>> import cygrad
    >>> f = cygrad.finfo(cygrad.float32)
    >>> f.eps, f.tiny, f.dtype
    (1.1920928955078125e-07, 1.1754943508222875e-38, 'float32')
    """

    def __init__(self, type=None):
        dt = _dt.get_default_dtype() if type is None else type
        if not isinstance(dt, _dt.dtype):
            raise TypeError(f"finfo(): argument 'type' must be cygrad.dtype, not {dt.__class__.__name__}")
        name = _COMPLEX_PART.get(dt.name, dt.name)
        if name not in _FLOATS:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        bits, mant, min_exp, mx, res = _FLOATS[name]
        self.bits = bits
        self.eps = 2.0 ** -mant
        self.max = mx
        self.min = -mx
        self.tiny = self.smallest_normal = 2.0 ** min_exp
        self.resolution = res
        self.dtype = name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``,
    ``max`` and ``dtype`` (a string). ``bool`` and floating dtypes raise ``TypeError``.

    Examples
    --------
    >>> import cygrad
    >>> i = cygrad.iinfo(cygrad.uint8)
    >>> i.bits, i.min, i.max, i.dtype
    (8, 0, 255, 'uint8')
    """

    def __init__(self, type):
        if not isinstance(type, _dt.dtype):
            raise TypeError(f"iinfo(): argument 'type' must be cygrad.dtype, not {type.__class__.__name__}")
        if type is _dt.bool_:
            raise TypeError("cygrad.bool is not supported by cygrad.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        self.bits = 8 * type.itemsize
        if type.is_signed:
            self.min, self.max = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        else:
            self.min, self.max = 0, (1 << self.bits) - 1
        self.dtype = type.name

    def __repr__(self):
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"   # (as torch)


class _Tag:
    """A named singleton shown as ``cygrad.<name>`` and pickled by name."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"cygrad.{self.name}"

    def __reduce__(self):
        return self.name


class layout(_Tag):
    """How a tensor's elements are laid out in memory (``torch.layout``). cygrad has
    one layout, :data:`strided` (every ``Tensor.layout``); PyTorch's sparse layouts
    are not implemented.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).layout
    cygrad.strided
    """


class memory_format(_Tag):
    """A memory-format tag (``torch.memory_format``): ``contiguous_format``,
    ``preserve_format``, ``channels_last``, ``channels_last_3d``,
    ``legacy_contiguous_format``. Factories and ``contiguous`` accept the argument;
    cygrad lays tensors out row-major (contiguous) whatever the tag.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.contiguous_format
    cygrad.contiguous_format
    """


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
legacy_contiguous_format = memory_format("legacy_contiguous_format")
