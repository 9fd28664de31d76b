"""Grad modes: switch graph recording off (``no_grad``) or on (``enable_grad``).

Each works as a context manager and as a decorator, and is thread-local: a
``no_grad`` block in one thread does not affect another thread.
"""
import functools

from .._core import tensor as _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

is_grad_enabled = _C.is_grad_enabled


class _GradModeContext:
    """Shared machinery: enter sets a mode, exit restores the previous one."""

    _mode = None

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeContext):
    """Disable graph recording: results of ops do not require grad.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> with cygrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """
    _mode = False

    def __init__(self, orig_func=None):
        # allow both ``@no_grad`` and ``@no_grad()``
        self._orig = orig_func

    def __call__(self, fn=None, *args, **kwargs):
        if self._orig is not None:
            with no_grad():
                return self._orig(fn, *args, **kwargs) if fn is not None else self._orig(*args, **kwargs)
        return super().__call__(fn)


class enable_grad(_GradModeContext):
    """Enable graph recording inside a ``no_grad`` region.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> with cygrad.no_grad():
    ...     with cygrad.enable_grad():
    ...         y = x * 2
    >>> y.requires_grad
    True
    """
    _mode = True


class set_grad_enabled(_GradModeContext):
    """Set recording on or off: as a function call, a context manager or a decorator.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.set_grad_enabled(False):
    ...     cygrad.is_grad_enabled()
    False
    """

    def __init__(self, mode):
        self._mode = bool(mode)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)   # takes effect immediately, like torch

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        mode = self._mode
        _C._set_grad_enabled(self._prev)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return set_grad_enabled(self._mode)


class inference_mode(_GradModeContext):
    """Like ``no_grad`` (cygrad has no separate inference tensors): ops inside neither
    record a graph nor make outputs require grad.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.inference_mode():
    ...     cygrad.is_grad_enabled()
    False
    """

    def __init__(self, mode=True):
        self._mode = not mode

    def __enter__(self):
        _INFERENCE.append(self._mode is False)
        return super().__enter__()

    def __exit__(self, *exc):
        _INFERENCE.pop()
        return super().__exit__(*exc)

    def __call__(self, fn):
        mode = not self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper


_INFERENCE = []


def is_inference_mode_enabled():
    return bool(_INFERENCE and _INFERENCE[-1])
