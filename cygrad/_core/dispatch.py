"""The kernel table: (primitive, device type) -> kernel.

This is the seam between the two layers of cygrad (see ``docs/architecture.md``).  An op in
``cygrad/ops`` or ``cygrad/nn/_ops`` never computes on a buffer itself; it asks
this table for the *primitive kernel* of the device its inputs live on and calls
it with tensors.  A backend fills the table when it is imported; adding a device
means registering its kernels here, and no op changes.

A kernel takes and returns tensors (``TensorBase``) plus plain Python numbers and
tuples; it checks nothing that the op has already checked, and it never records
autograd history (that is the op's job).

Examples
--------
>>> from cygrad._core import dispatch
>>> @dispatch.register("demo_double", "cpu")
... def _demo_double(x):
...     return x + x
>>> import cygrad
>>> dispatch.kernel("demo_double", "cpu")(cygrad.tensor([1.0, 2.0]))
tensor([2., 4.])
>>> dispatch.kernel("demo_double", "cuda")
Traceback (most recent call last):
    ...
NotImplementedError: no 'cuda' kernel for primitive 'demo_double' (devices that have one: cpu)
"""

_TABLE = {}          # (primitive, device type) -> callable
_DTYPES = {}         # (primitive, device type) -> dtype names, for kernels that cover only some


def register(primitive, device, dtypes=None):
    """Decorator: make ``fn`` the kernel of ``primitive`` on ``device`` (a device type
    such as ``"cpu"`` or ``"cuda"``).  Registering twice replaces the first entry,
    so a faster kernel can override a generic one.  ``dtypes`` (names such as
    ``"float32"``) limits the kernel to those dtypes: :func:`lookup` finds it only
    for them, and the op takes its fallback path for the others.

    Examples
    --------
    >>> from cygrad._core.dispatch import register, kernel
    >>> _ = register("demo_neg", "cpu")(lambda x: -x)
    >>> kernel("demo_neg", "cpu")(3)
    -3
    """
    def add(fn):
        _TABLE[(primitive, device)] = fn
        if dtypes is None:
            _DTYPES.pop((primitive, device), None)
        else:
            _DTYPES[(primitive, device)] = frozenset(dtypes)
        return fn
    return add


def lookup(primitive, device, dtype):
    """The kernel of ``primitive`` for tensors of ``dtype`` on ``device``, or None
    when there is none (no entry, or one that does not cover ``dtype``): the op
    then computes with its fallback, built from other ops.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.dispatch import register, lookup
    >>> _ = register("demo_half", "cpu", dtypes=("float64",))(lambda x: x / 2)
    >>> lookup("demo_half", "cpu", cygrad.float64)(4.0)
    2.0
    >>> lookup("demo_half", "cpu", cygrad.float32) is None
    True
    >>> lookup("demo_half", "cuda", cygrad.float64) is None
    True
    """
    device = getattr(device, "type", device)
    key = (primitive, device)
    fn = _TABLE.get(key)
    if fn is None:
        if _loaded:
            return None
        _load_backends()
        fn = _TABLE.get(key)
        if fn is None:
            return None
    allowed = _DTYPES.get(key)
    if allowed is not None and dtype.name not in allowed:
        return None
    return fn


def kernel(primitive, device):
    """The kernel of ``primitive`` on ``device`` (a device type string or a
    ``cygrad.device``); ``NotImplementedError`` naming both when there is none.

    Examples
    --------
    >>> from cygrad._core.dispatch import kernel
    >>> from cygrad._core.dispatch import register
    >>> _ = register("demo_abs", "cpu")(abs)
    >>> kernel("demo_abs", "cpu")(-2)
    2
    """
    device = getattr(device, "type", device)
    try:
        return _TABLE[(primitive, device)]
    except KeyError:
        _load_backends()
        try:
            return _TABLE[(primitive, device)]
        except KeyError:
            have = sorted(d for p, d in _TABLE if p == primitive)
            raise NotImplementedError(
                f"no '{device}' kernel for primitive '{primitive}' (devices that have one: "
                f"{', '.join(have) or 'none'})") from None


def primitives(device):
    """Sorted names of the primitives ``device`` has a kernel for.

    Examples
    --------
    >>> from cygrad._core.dispatch import primitives
    >>> from cygrad._core.dispatch import register
    >>> _ = register("demo_sq", "cpu")(lambda x: x * x)
    >>> "demo_sq" in primitives("cpu")
    True
    """
    _load_backends()
    return sorted(p for p, d in _TABLE if d == device)


_loaded = False


def _load_backends():
    # Backends register on import; importing them here (not at the top) keeps
    # this module free of import cycles with the core.
    global _loaded
    if not _loaded:
        _loaded = True
        from . import backend_cpu  # noqa: F401
