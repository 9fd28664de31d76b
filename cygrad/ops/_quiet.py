"""``quiet()``: ``np.errstate(all="ignore")`` at a tenth of its price.

The ops that run NumPy kernels on tensors silence NumPy's floating-point warnings
(PyTorch gives ``inf``/``nan`` without a word).  ``np.errstate`` builds its error
state anew on every entry, which costs about as much as a small reduction itself;
the state wanted here never changes, so it is built once and set and reset through
the context variable NumPy reads.  Where NumPy lacks that variable (another
version), ``quiet()`` is ``np.errstate(all="ignore")`` itself.

Examples
--------
>>> import numpy as np
>>> from cygrad.ops._quiet import quiet
>>> with quiet():
...     r = np.float32(1) / np.float32(0)
>>> float(r)
inf
"""
import numpy as np

try:
    from numpy._core._ufunc_config import _extobj_contextvar as _STATE
    from numpy._core.umath import _make_extobj
    _IGNORE = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):      # pragma: no cover - other NumPy
    _STATE = None


class _Quiet:
    __slots__ = ("_token",)

    def __enter__(self):
        self._token = _STATE.set(_IGNORE)

    def __exit__(self, *exc_info):
        _STATE.reset(self._token)


def quiet():
    """A context in which NumPy's floating-point errors are ignored.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from cygrad.ops._quiet import quiet
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error")
    ...     with quiet():
    ...         np.log(np.zeros(1)).tolist()
    [-inf]
    """
    return _Quiet() if _STATE is not None else np.errstate(all="ignore")


def quiet_enter():
    """``quiet()`` for a hot path, without a context manager's method calls: returns a
    token for :func:`quiet_exit` (call it in a ``finally``).

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad.ops._quiet import quiet_enter, quiet_exit
    >>> token = quiet_enter()
    >>> try:
    ...     r = np.sqrt(np.float64(-1))
    ... finally:
    ...     quiet_exit(token)
    >>> bool(np.isnan(r))
    True
    """
    if _STATE is not None:
        return _STATE.set(_IGNORE)
    state = np.errstate(all="ignore")
    state.__enter__()
    return state


def quiet_exit(token):
    """Restore the error state :func:`quiet_enter` replaced."""
    if _STATE is not None:
        _STATE.reset(token)
    else:
        token.__exit__(None, None, None)
