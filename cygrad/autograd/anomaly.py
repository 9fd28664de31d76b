"""Anomaly detection: find the op whose backward produced NaN.

With anomaly mode on, every recorded node remembers the Python stack of the forward
call that created it; when a backward returns NaN the engine raises an error naming
the node and showing that stack.
"""
from .._core import engine as _E

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]

is_anomaly_enabled = _E.is_anomaly_enabled


class detect_anomaly:
    """Context manager (and decorator) turning anomaly detection on.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([0.0], requires_grad=True)
    >>> with cygrad.autograd.detect_anomaly():
    ...     y = x.sqrt() * 0           # d sqrt(x)/dx at 0 is inf; inf * 0 = nan
    ...     try:
    ...         y.sum().backward()
    ...     except RuntimeError as e:
    ...         print(str(e).splitlines()[0])
    Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self.prev = (_E.is_anomaly_enabled(), _E.is_anomaly_check_nan_enabled())
        _E.set_detect_anomaly(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _E.set_detect_anomaly(*self.prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turn anomaly detection on/off; usable as a call or a context manager."""

    def __init__(self, mode, check_nan=True):
        self.prev = (_E.is_anomaly_enabled(), _E.is_anomaly_check_nan_enabled())
        _E.set_detect_anomaly(mode, check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _E.set_detect_anomaly(*self.prev)
        return False
