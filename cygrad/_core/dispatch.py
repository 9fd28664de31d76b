"""The kernel table: (primitive, device type) -> kernel.

This is the seam between the two layers of cygrad (see DESIGN.md).  An op in
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


def register(primitive, device):
    """Decorator: make ``fn`` the kernel of ``primitive`` on ``device`` (a device type
    such as ``"cpu"`` or ``"cuda"``).  Registering twice replaces the first entry,
    so a faster kernel can override a generic one.

    Examples
    --------
    >>> from cygrad._core.dispatch import register, kernel
    >>> _ = register("demo_neg", "cpu")(lambda x: -x)
    >>> kernel("demo_neg", "cpu")(3)
    -3
    """
    def add(fn):
        _TABLE[(primitive, device)] = fn
        return fn
    return add


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
