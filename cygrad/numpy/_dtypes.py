"""Data types of ``cygrad.numpy`` and the array API standard's type promotion.

``cygrad.result_type`` follows PyTorch; this namespace follows the array API
standard (2024.12) and, where the standard leaves a case to the implementation
(mixed kinds: bool with numbers, integers with floats), NumPy. The two differ
for example on ``int64 + float32``: PyTorch gives float32, NumPy and
``cygrad.numpy`` float64, because float32 cannot hold every int64.

The rules are written out here (a small lattice), not borrowed from NumPy at
run time, so they can be read and are tested against NumPy's.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.result_type(cnp.uint8, cnp.int8)
cygrad.int16
>>> cnp.result_type(cnp.int64, cnp.float32)
cygrad.float64
>>> cnp.result_type(cnp.float64, cnp.complex64), cnp.result_type(cnp.float32, 1j)
(cygrad.complex128, cygrad.complex64)
"""
import builtins

import numpy as _np

import cygrad
from cygrad._core.dtype import dtype as DType

bool = cygrad.bool
int8, int16, int32, int64 = cygrad.int8, cygrad.int16, cygrad.int32, cygrad.int64
uint8 = cygrad.uint8
float16, bfloat16, float32, float64 = cygrad.float16, cygrad.bfloat16, cygrad.float32, cygrad.float64
complex64, complex128 = cygrad.complex64, cygrad.complex128

# The namespace's defaults are NumPy's, so that a ported script computes in the
# precision it was written for (cygrad's own default float is float32).
DEFAULT_FLOAT = float64
DEFAULT_INT = int64
DEFAULT_INDEX = int64
DEFAULT_COMPLEX = complex128

_SIGNED = (int8, int16, int32, int64)
_UNSIGNED = (uint8,)
_FLOATS = (float16, bfloat16, float32, float64)
_COMPLEX = (complex64, complex128)
ALL_DTYPES = (bool, int8, int16, int32, int64, uint8, float16, bfloat16, float32, float64,
              complex64, complex128)
# The smallest float that holds every value of an integer dtype exactly
# (NumPy's rule for mixing integers with floats and for int -> float ufuncs).
_FLOAT_FOR_INT = {bool: float16, int8: float16, uint8: float16, int16: float32,
                  int32: float64, int64: float64}


def _bits(dt):
    return dt.itemsize * 8


def _kind(dt):
    if dt is bool:
        return "b"
    if dt.is_floating_point:
        return "f"
    if dt.is_complex:
        return "c"
    return "i" if dt.is_signed else "u"


def _promote_floats(a, b):
    if {a, b} == {float16, bfloat16}:
        return float32          # neither holds the other
    return a if _bits(a) >= _bits(b) else b


def _real_of(dt):
    """The real dtype carrying ``dt``'s precision: a complex dtype's component, an
    integer's smallest exact float (NumPy's rule), a float itself."""
    k = _kind(dt)
    if k == "c":
        return dt.to_real()
    return dt if k == "f" else _FLOAT_FOR_INT[dt]


def _promote_pair(a, b):
    if a is b:
        return a
    ka, kb = _kind(a), _kind(b)
    if ka == "b":
        return b
    if kb == "b":
        return a
    if ka == "c" or kb == "c":
        # complex with anything: the complex dtype whose component holds both
        # (float64 + complex64 is complex128, the standard's table)
        real = _promote_floats(_real_of(a), _real_of(b))
        return complex64 if real in (float16, bfloat16, float32) else complex128
    if ka == kb:
        if ka == "f":
            return _promote_floats(a, b)
        return a if _bits(a) >= _bits(b) else b
    if ka == "f" or kb == "f":
        f, i = (a, b) if ka == "f" else (b, a)
        return _promote_floats(f, _FLOAT_FOR_INT[i])
    # signed with unsigned: the smallest signed type that holds both
    s, u = (a, b) if ka == "i" else (b, a)
    if _bits(s) > _bits(u):
        return s
    for cand in _SIGNED:
        if _bits(cand) > _bits(u) and _bits(cand) >= _bits(s):
            return cand
    return float64              # uint64 with a signed integer (NumPy's choice)


def _is_dtype(x):
    return isinstance(x, DType)


def as_dtype(x):
    """A cygrad dtype from a cygrad dtype, a NumPy dtype (or its name) or a Python type.

    Examples
    --------
    >>> from cygrad.numpy._dtypes import as_dtype
    >>> as_dtype("float32"), as_dtype(float)
    (cygrad.float32, cygrad.float64)
    """
    if _is_dtype(x):
        return x
    if x is builtins.bool:
        return bool
    if x is builtins.int:
        return DEFAULT_INT
    if x is builtins.float:
        return DEFAULT_FLOAT
    try:
        npd = _np.dtype(x)
    except TypeError:
        raise TypeError(f"data type {x!r} not understood") from None
    for dt in ALL_DTYPES:
        if dt.np_dtype == npd:
            return dt
    raise TypeError(f"cygrad.numpy does not support the data type {npd} "
                    f"(supported: {', '.join(d.name for d in ALL_DTYPES)})")


def _scalar_dtype(value, other):
    """The dtype a Python scalar takes next to an array of dtype ``other`` (the
    standard's rule: it adopts the array's dtype when the kinds are compatible)."""
    if isinstance(value, builtins.bool):
        return other if other is not None else bool
    if isinstance(value, builtins.int):
        if other is not None and other is not bool:
            return other
        return DEFAULT_INT
    if isinstance(value, builtins.float):
        if other is not None and (other.is_floating_point or other.is_complex):
            return other
        return DEFAULT_FLOAT
    if isinstance(value, builtins.complex):
        if other is not None and other.is_complex:
            return other
        if other is not None and other.is_floating_point:
            # a complex scalar makes a real floating array complex of its precision
            return complex64 if other in (float16, bfloat16, float32) else complex128
        return DEFAULT_COMPLEX
    raise TypeError(f"expected an array, a dtype or a Python scalar, got {type(value).__name__}")


def result_type(*arrays_and_dtypes):
    """The dtype that results from combining arrays, dtypes and Python scalars.

    Follows the array API standard's promotion table, and NumPy where the
    standard is silent (mixed kinds). Python scalars take the dtype of the
    arrays they meet when the kinds are compatible.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.result_type(cnp.int8, cnp.uint8), cnp.result_type(cnp.float32, 1.5)
    (cygrad.int16, cygrad.float32)
    >>> cnp.result_type(cnp.int32, 1.5)
    cygrad.float64
    """
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    dts, scalars = [], []
    for x in arrays_and_dtypes:
        if isinstance(x, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
            scalars.append(x)
        elif isinstance(x, cygrad.Tensor):
            dts.append(x.dtype)
        else:
            dts.append(as_dtype(x))
    res = None
    for dt in dts:
        res = dt if res is None else _promote_pair(res, dt)
    for s in scalars:
        res = _promote_pair(res, _scalar_dtype(s, res)) if res is not None else _scalar_dtype(s, None)
    return res


def can_cast(from_, to, /):
    """Whether ``from_`` can be cast to ``to`` by the promotion rules (no loss of kind
    or range: ``result_type(from_, to) == to``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.can_cast(cnp.int8, cnp.int16), cnp.can_cast(cnp.float64, cnp.float32)
    (True, False)
    """
    src = from_.dtype if isinstance(from_, cygrad.Tensor) else as_dtype(from_)
    return _promote_pair(src, as_dtype(to)) is as_dtype(to)


class finfo_object:
    """Machine limits of a floating-point dtype (``bits, eps, max, min, smallest_normal,
    dtype``), as the standard's ``finfo``. For a complex dtype the limits are its real
    component's (``finfo(complex64).bits == 32``, ``dtype`` float32), as the standard says.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> f = cnp.finfo(cnp.float32)
    >>> f.bits, f.eps == 2.0 ** -23
    (32, True)
    """

    def __init__(self, dt):
        if dt.is_complex:
            dt = dt.to_real()
        info = _np.finfo(dt.np_dtype)
        self.dtype = dt
        self.bits = _bits(dt)
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = builtins.float(info.resolution)

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype.name})")


class iinfo_object:
    """Machine limits of an integer dtype (``bits, max, min, dtype``), as the standard's
    ``iinfo``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.iinfo(cnp.int8).min, cnp.iinfo(cnp.uint8).max
    (-128, 255)
    """

    def __init__(self, dt):
        info = _np.iinfo(dt.np_dtype)
        self.dtype = dt
        self.bits = _bits(dt)
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype.name})"


def _dtype_of(x):
    return x.dtype if isinstance(x, cygrad.Tensor) else as_dtype(x)


def finfo(type, /):
    """Limits of a floating-point dtype (or of an array's dtype).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.finfo(cnp.float64).bits, cnp.finfo(cnp.complex64).dtype
    (64, cygrad.float32)
    """
    dt = _dtype_of(type)
    if not (dt.is_floating_point or dt.is_complex):
        raise ValueError(f"finfo needs a floating-point dtype, got {dt.name}")
    return finfo_object(dt)


def iinfo(type, /):
    """Limits of an integer dtype (or of an array's dtype).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.iinfo(cnp.int16).max
    32767
    """
    dt = _dtype_of(type)
    if dt.is_floating_point or dt.is_complex or dt is bool:
        raise ValueError(f"iinfo needs an integer dtype, got {dt.name}")
    return iinfo_object(dt)


_KINDS = {
    "bool": lambda d: d is bool,
    "signed integer": lambda d: d in _SIGNED,
    "unsigned integer": lambda d: d in _UNSIGNED,
    "integral": lambda d: d in _SIGNED or d in _UNSIGNED,
    "real floating": lambda d: d in _FLOATS,
    "complex floating": lambda d: d in _COMPLEX,
    "numeric": lambda d: d is not bool,
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, one of the standard's kind names
    (``"bool"``, ``"signed integer"``, ``"unsigned integer"``, ``"integral"``,
    ``"real floating"``, ``"complex floating"``, ``"numeric"``) or a tuple of these.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.isdtype(cnp.int8, "integral"), cnp.isdtype(cnp.float32, ("bool", "numeric"))
    (True, True)
    """
    if not _is_dtype(dtype):
        raise TypeError(f"isdtype expects a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if _is_dtype(kind):
        return dtype is kind
    if isinstance(kind, str):
        try:
            return _KINDS[kind](dtype)
        except KeyError:
            raise ValueError(f"unknown dtype kind {kind!r}") from None
    raise TypeError(f"kind must be a dtype, a str or a tuple, got {type(kind).__name__}")


def float_for(dt):
    """The floating dtype a function with float results (``sqrt``, ``mean``...) computes
    in for input dtype ``dt``: ``dt`` itself when it is floating, else NumPy's choice.

    Examples
    --------
    >>> from cygrad.numpy._dtypes import float_for
    >>> import cygrad
    >>> float_for(cygrad.int8), float_for(cygrad.int32), float_for(cygrad.complex64)
    (cygrad.float16, cygrad.float64, cygrad.complex64)
    """
    return dt if dt.is_floating_point or dt.is_complex else _FLOAT_FOR_INT[dt]
