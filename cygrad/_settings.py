"""Process-wide switches of PyTorch's top level that only record a choice in cygrad,
because its CPU kernels already behave one way: determinism, float32 matmul
precision, warn-always, flushing denormals, the legacy default tensor type, and the
anomaly-mode functions under their ``torch.*`` names.

cygrad's CPU kernels are deterministic: the same inputs give bit-identical results
on every run and for any thread count (docs/architecture.md, "Threads"), so
``use_deterministic_algorithms(True)`` has nothing to turn off and never raises.

Examples
--------
>>> import cygrad
>>> cygrad.use_deterministic_algorithms(True)
>>> cygrad.are_deterministic_algorithms_enabled(), cygrad.get_deterministic_debug_mode()
(True, 2)
>>> cygrad.use_deterministic_algorithms(False)
"""
import warnings

from ._core import dtype as _dt
from ._core import engine as _E

__all__ = ["use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
           "get_deterministic_debug_mode", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "set_warn_always", "is_warn_always_enabled",
           "set_flush_denormal", "set_default_tensor_type", "is_anomaly_enabled",
           "set_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_state = {"deterministic": False, "warn_only": False, "matmul_precision": "highest",
          "warn_always": False}


def _bool(value, fname, argname):
    if not isinstance(value, bool):
        raise TypeError(f"{fname}(): argument '{argname}' (position 1) must be bool, "
                        f"not {type(value).__name__}")
    return value


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (``torch.use_deterministic_algorithms``).

    Every cygrad CPU kernel is already deterministic, so this records the setting
    (read back by :func:`are_deterministic_algorithms_enabled`) and changes nothing.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.use_deterministic_algorithms(True, warn_only=True)
    >>> cygrad.is_deterministic_algorithms_warn_only_enabled()
    True
    >>> cygrad.use_deterministic_algorithms(False)
    """
    _state["deterministic"] = _bool(mode, "_set_deterministic_algorithms", "mode")
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    """The last ``use_deterministic_algorithms`` mode (initially ``False``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.are_deterministic_algorithms_enabled()
    False
    """
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    """The last ``use_deterministic_algorithms`` ``warn_only`` flag.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode):
    """``0``/``"default"``, ``1``/``"warn"`` or ``2``/``"error"``: the same as
    ``use_deterministic_algorithms(False)``, ``(True, warn_only=True)`` and ``(True)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_deterministic_debug_mode("warn")
    >>> cygrad.get_deterministic_debug_mode()
    1
    >>> cygrad.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    elif isinstance(debug_mode, int):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """``0`` (off), ``1`` (warn only) or ``2`` (deterministic), from the current settings.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_deterministic_debug_mode()
    0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_float32_matmul_precision(precision):
    """Record ``"highest"``, ``"high"`` or ``"medium"`` (another value warns and is
    ignored, as in PyTorch). cygrad's float32 matmuls always run in full float32
    (OpenBLAS sgemm), which is what ``"highest"`` asks for; the lower settings, which
    let PyTorch use TF32 or bfloat16 units, change nothing.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_float32_matmul_precision("high")
    >>> cygrad.get_float32_matmul_precision()
    'high'
    >>> cygrad.set_float32_matmul_precision("highest")
    """
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    """The recorded float32 matmul precision (initially ``"highest"``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_float32_matmul_precision()
    'highest'
    """
    return _state["matmul_precision"]


def set_warn_always(b):
    """Record PyTorch's warn-always flag. cygrad's warnings go through Python's
    ``warnings`` module, whose filters decide whether a repeated warning shows.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_warn_always(False)
    >>> cygrad.is_warn_always_enabled()
    False
    """
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state["warn_always"] = b


def is_warn_always_enabled():
    """The flag :func:`set_warn_always` recorded (initially ``False``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_warn_always_enabled()
    False
    """
    return _state["warn_always"]


def set_flush_denormal(mode):
    """Whether the requested denormal mode is in effect: cygrad cannot flush denormals
    to zero (its kernels leave the CPU's floating-point control flags alone), so
    ``set_flush_denormal(True)`` returns ``False`` and ``False`` returns ``True``.
    PyTorch returns ``True`` for both on x86 CPUs with SSE3.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_flush_denormal(True), cygrad.set_flush_denormal(False)
    (False, True)
    """
    return not _bool(mode, "set_flush_denormal", "mode")


def set_default_tensor_type(t):
    """Deprecated (as in PyTorch 2.1+, with its warning): set the default dtype from a
    floating-point tensor type, ``cygrad.DoubleTensor`` or its name
    (``"torch.DoubleTensor"`` is accepted too).

    Examples
    --------
    >>> import warnings, cygrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     cygrad.set_default_tensor_type(cygrad.DoubleTensor)
    >>> cygrad.get_default_dtype()
    cygrad.float64
    >>> cygrad.set_default_dtype(cygrad.float32)
    """
    from . import _legacy
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str):
        prefix, _, name = t.rpartition(".")
        cls = getattr(_legacy, name, None) if prefix in ("torch", "cygrad") else None
        if cls is None or name not in _legacy._TYPED:
            raise TypeError(f"invalid type: '{t}'")
    else:
        cls = t
    dtype = getattr(cls, "_dtype", None)
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"invalid type: {t!r}")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(dtype)


def is_anomaly_enabled():
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``;
    see ``cygrad.autograd.detect_anomaly``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_anomaly_enabled()
    False
    """
    return bool(_E.is_anomaly_enabled())


def is_anomaly_check_nan_enabled():
    """Whether anomaly mode also checks backward outputs for NaN.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.autograd.detect_anomaly(check_nan=False):
    ...     cygrad.is_anomaly_enabled(), cygrad.is_anomaly_check_nan_enabled()
    (True, False)
    """
    return bool(_E.is_anomaly_check_nan_enabled())


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off for the process (``torch.set_anomaly_enabled``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_anomaly_enabled(True)
    >>> cygrad.is_anomaly_enabled()
    True
    >>> cygrad.set_anomaly_enabled(False)
    """
    _E.set_detect_anomaly(_bool(enabled, "set_anomaly_enabled", "enabled"), bool(check_nan))
