"""dtype objects and PyTorch's type-promotion rules.

A ``cygrad.dtype`` is a small immutable object (``cygrad.float32``...). Each wraps the
NumPy dtype that describes the same bytes, which is what makes zero-copy exchange with
NumPy possible. ``bfloat16`` comes from the ``ml_dtypes`` package.

Promotion follows ``torch.result_type``: operands are split into three priority levels
(tensors with dimensions, zero-dim tensors, Python scalars) and a lower level only
matters when it is of a higher *category* (bool < integer < floating < complex).
``complex64``/``complex128`` hold pairs of float32/float64 (real, imaginary).
"""
import numpy as np
import ml_dtypes

cdef list _BY_CODE = [None] * DT_COUNT
cdef list _PROMOTE = [None] * (DT_COUNT * DT_COUNT)   # flat [a.code * DT_COUNT + b.code]
cdef dtype _default_float


cdef class dtype:
    """A tensor element type, such as ``cygrad.float32``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.float32.itemsize
    4
    >>> cygrad.float32.is_floating_point
    True

    ``kind`` is NumPy's one-letter category (``'b'``, ``'u'``, ``'i'``, ``'f'``,
    ``'c'``), which array-API consumers such as scikit-learn read:

    >>> cygrad.float32.kind, cygrad.uint8.kind, cygrad.complex64.kind
    ('f', 'u', 'c')
    """

    def __init__(self, *args):
        raise TypeError("cygrad.dtype objects cannot be created; use cygrad.float32 etc.")

    @property
    def is_floating_point(self):
        return self._category == KIND_FLOAT

    @property
    def is_complex(self):
        return self._category == KIND_COMPLEX

    def to_complex(self):
        """The complex dtype whose parts have this dtype (``float64 -> complex128``).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.float32.to_complex(), cygrad.complex128.to_complex()
        (cygrad.complex64, cygrad.complex128)
        """
        if self._category == KIND_COMPLEX:
            return self
        if self.code == DT_FLOAT64:
            return complex128
        if self._category == KIND_FLOAT:
            # float16 would be complex32 in PyTorch, which cygrad does not have
            return complex64
        raise RuntimeError(f"Unknown Complex ScalarType for {_TORCH_NAMES[self.code]}")

    def to_real(self):
        """The dtype of this dtype's real part (``complex64 -> float32``); a real
        dtype is returned as it is.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.complex64.to_real(), cygrad.int32.to_real()
        (cygrad.float32, cygrad.int32)
        """
        if self.code == DT_COMPLEX64:
            return float32
        if self.code == DT_COMPLEX128:
            return float64
        return self

    def to_numpy(self):
        """The NumPy dtype with the same memory layout."""
        return self.np_dtype

    def __repr__(self):
        return "cygrad." + self.name

    def __reduce__(self):
        # Pickle by name so unpickling returns the singleton.
        return (_dtype_by_name, (self.name,))

    def __hash__(self):
        return self.code


cdef dtype _make(str name, int code, int kind, bint signed, object np_dt):
    cdef dtype d = dtype.__new__(dtype)
    d.name = name
    d.code = code
    d._category = kind
    # NumPy's letter; bfloat16 is 'f' here although ml_dtypes' NumPy dtype says 'V'
    d.kind = ("b", "i", "f", "c")[kind] if signed or kind != KIND_INT else "u"
    d.is_signed = signed
    d.np_dtype = np.dtype(np_dt)
    d.itemsize = d.np_dtype.itemsize
    _BY_CODE[code] = d
    return d


bool_ = _make("bool", DT_BOOL, KIND_BOOL, False, np.bool_)
uint8 = _make("uint8", DT_UINT8, KIND_INT, False, np.uint8)
int8 = _make("int8", DT_INT8, KIND_INT, True, np.int8)
int16 = _make("int16", DT_INT16, KIND_INT, True, np.int16)
int32 = _make("int32", DT_INT32, KIND_INT, True, np.int32)
int64 = _make("int64", DT_INT64, KIND_INT, True, np.int64)
float16 = _make("float16", DT_FLOAT16, KIND_FLOAT, True, np.float16)
bfloat16 = _make("bfloat16", DT_BFLOAT16, KIND_FLOAT, True, ml_dtypes.bfloat16)
float32 = _make("float32", DT_FLOAT32, KIND_FLOAT, True, np.float32)
float64 = _make("float64", DT_FLOAT64, KIND_FLOAT, True, np.float64)
complex64 = _make("complex64", DT_COMPLEX64, KIND_COMPLEX, True, np.complex64)
complex128 = _make("complex128", DT_COMPLEX128, KIND_COMPLEX, True, np.complex128)
# PyTorch's C type names, for its error messages
_TORCH_NAMES = ("Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float",
                "Double", "ComplexFloat", "ComplexDouble")

ALL_DTYPES = tuple(_BY_CODE[i] for i in range(DT_COUNT))
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NP = {d.np_dtype: d for d in ALL_DTYPES}


def _dtype_by_name(name):
    return _BY_NAME[name]


cdef dtype _promote_rule(dtype a, dtype b):
    """torch.promote_types for the dtypes cygrad has."""
    if a is b:
        return a
    if a._category == KIND_BOOL:
        return b
    if b._category == KIND_BOOL:
        return a
    if a._category == KIND_COMPLEX or b._category == KIND_COMPLEX:
        # the complex type whose parts hold both: float64 with complex64 is complex128
        if a.code == DT_FLOAT64 or b.code == DT_FLOAT64 or DT_COMPLEX128 in (a.code, b.code):
            return complex128
        return complex64
    if a._category == KIND_FLOAT and b._category == KIND_FLOAT:
        # float16 and bfloat16 have no common 16-bit type.
        if {a.code, b.code} == {DT_FLOAT16, DT_BFLOAT16}:
            return float32
        return a if a.itemsize >= b.itemsize else b
    if a._category == KIND_FLOAT:
        return a  # an integer never widens a floating type
    if b._category == KIND_FLOAT:
        return b
    # Both integers. uint8 is the only unsigned type: uint8 with a signed type
    # needs a signed type wider than 8 bits.
    if a.is_signed == b.is_signed:
        return a if a.itemsize >= b.itemsize else b
    signed_t = a if a.is_signed else b
    if signed_t.itemsize > 1:
        return signed_t
    return int16


cdef int _i, _j
for _i in range(DT_COUNT):
    for _j in range(DT_COUNT):
        _PROMOTE[_i * DT_COUNT + _j] = _promote_rule(_BY_CODE[_i], _BY_CODE[_j])
_default_float = float32


cdef dtype dtype_from_code(int code):
    return <dtype>_BY_CODE[code]


cdef dtype promote(dtype a, dtype b):
    return <dtype>_PROMOTE[a.code * DT_COUNT + b.code]


cdef dtype default_float():
    return _default_float


cdef dtype default_complex():
    """The dtype of a Python complex: complex128 when the default float is float64."""
    return complex128 if _default_float.code == DT_FLOAT64 else complex64


cdef dtype to_dtype(object obj):
    """Accept a cygrad dtype, a NumPy dtype-like, or a Python type."""
    if isinstance(obj, dtype):
        return <dtype>obj
    if obj is float:
        return _default_float
    if obj is int:
        return int64
    if obj is bool:
        return bool_
    if obj is complex:
        return complex128          # as torch: dtype=complex is complex128
    if isinstance(obj, str) and obj in _BY_NAME:
        return _BY_NAME[obj]
    try:
        npd = np.dtype(obj)
    except TypeError:
        raise TypeError(f"cannot interpret {obj!r} as a cygrad dtype") from None
    try:
        return _BY_NP[npd]
    except KeyError:
        raise TypeError(f"cygrad does not support the NumPy dtype {npd}") from None


def as_dtype(obj):
    """Convert ``obj`` (cygrad dtype, NumPy dtype, type, or name) to a cygrad dtype."""
    return to_dtype(obj)


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` convert to safely (PyTorch rules).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.promote_types(cygrad.uint8, cygrad.int8)
    cygrad.int16
    """
    return promote(to_dtype(type1), to_dtype(type2))


def set_default_dtype(d):
    """Set the dtype used for Python floats and float-producing factories.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_default_dtype(cygrad.float64)
    >>> cygrad.tensor([1.5]).dtype
    cygrad.float64
    >>> cygrad.set_default_dtype(cygrad.float32)
    """
    global _default_float
    cdef dtype dd = to_dtype(d)
    if dd._category != KIND_FLOAT:
        raise TypeError(f"only floating-point types are supported as the default type, got {dd!r}")
    _default_float = dd


def get_default_dtype():
    """The current default floating-point dtype (``cygrad.float32`` unless changed).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_default_dtype()
    cygrad.float32
    """
    return _default_float

