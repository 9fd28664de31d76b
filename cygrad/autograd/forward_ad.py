"""Forward-mode automatic differentiation, as ``torch.autograd.forward_ad``.

Reverse mode (``backward``) computes vector-Jacobian products ``v^T J``: one pass per
*output* direction. Forward mode computes Jacobian-vector products ``J v`` alongside
the forward computation: one pass per *input* direction. Each tensor may carry a
**tangent** (the directional derivative of its value along ``v``); an op that sees a
tangent on an input computes its output's tangent right after its output::

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, v)      # x carries tangent v
        y = f(x)                                 # every op pushes the tangent forward
        value, jvp = forward_ad.unpack_dual(y)   # jvp == J_f(primal) @ v

Where the tangent lives
-----------------------
The Cython ``TensorBase`` has a field ``_fw_grad``: the tangent, or None. The
dispatcher tests ``t._fw_grad is not None`` and routes an op on such a tensor through
its autograd ``Function`` (``function_apply``), even under ``no_grad`` (forward mode
does not depend on grad mode, as in PyTorch). A tangent always has its tensor's shape;
tangents are never modified in place, so tensors may share one tangent object.

Only one level exists at a time (PyTorch raises for nested ``dual_level`` too; use
``cygrad.autograd.functional`` for higher-order derivatives). Leaving the level
removes every tangent created in it: the tensors that got one are remembered weakly.

The jvp contract (how an op supports forward mode)
--------------------------------------------------
An op supports forward mode when its ``Function`` has a static method
``jvp(ctx, *tangents)``. Nothing else is needed: ``function_apply`` runs
``forward(ctx, *args)`` and, when some tensor argument carries a tangent, calls the
hook installed here, which

1. builds one tangent per forward argument: the argument's tangent, or **None** for a
   non-tensor argument or a tensor without tangent (None means zero: a jvp must skip
   those terms instead of multiplying zeros);
2. calls ``cls.jvp(ctx, *tangents)`` with forward mode switched off, so the plain ops
   in the jvp neither see tangents nor create tangents of tangents (grad mode is left
   as it is: with it on, tangents are differentiable by reverse mode);
3. takes the result (one tangent per output, a single tensor for a single output,
   None for an output whose tangent is zero) and attaches it to the outputs:
   expanded to the output's shape if it broadcasts, converted to the output's dtype
   and device. Non-floating outputs and outputs marked non-differentiable get none.

A jvp reads what ``forward`` needs through ``ctx``: attributes it set (``ctx.numbers``,
``ctx.geometries``...) and the tensors it passed to ``ctx.save_for_backward``, which
``ctx.saved_tensors`` returns while the jvp runs (the engine sets ``ctx._in_jvp`` for
that call, as the built-in jvps rely on); ``saved_for_jvp(ctx)`` returns the same
tensors. A Function without ``jvp`` raises a ``NotImplementedError`` (a
``RuntimeError``) naming it when used with a tangent.

Example: the jvp of ``Exp`` (saved output ``y``) is
``lambda ctx, t: t * ctx.saved_tensors[0]``.

Limits
------
* In-place ops on tensors that carry a tangent are not supported yet by the
  dispatcher (it refuses ``out=``-style writes on tracked tensors); when an in-place
  op runs through ``CopySlices`` (the target requires grad), the base's tangent is
  updated but existing views of it keep their old tangents.
* Forward-over-reverse (tangents flowing through a backward pass run inside a level)
  loses the tangents of *outputs* that a backward formula saved (e.g. ``exp``): the
  engine keeps saved outputs as aliases without tangent.
* Tangents of views are views of the base's tangent when the tangent is laid out
  like the base (``make_dual`` arranges that, copying the tangent if needed, as
  PyTorch does); otherwise they are gathered copies.
* The forward and jvp of an op run with forward mode switched off through the core's
  per-thread switch ``cygrad._core.tensor._set_fw_grad_enabled``.
"""
import itertools
import weakref
from typing import NamedTuple, Optional

from .._core import tensor as _C
from .._core.tensor import TensorBase
from .function import Function

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_current_level = -1
# Every tensor that received a tangent in the current level (weakly: dead ones vanish).
_with_tangent = weakref.WeakValueDictionary()
_ids = itertools.count()

_set_fw_enabled = getattr(_C, "_set_fw_grad_enabled", None)


def _require_core_support():
    if _set_fw_enabled is None:
        raise RuntimeError(
            "forward-mode AD needs the core's forward-grad switch "
            "(cygrad._core.tensor._set_fw_grad_enabled), which this build lacks: the ops "
            "inside a Function's forward would see the tangents again and recurse. "
            "Rebuild cygrad.")


class _fw_disabled:
    """Switch forward mode off for a block (the forward/jvp of an op computes plain values)."""

    def __enter__(self):
        self._prev = _set_fw_enabled(False)

    def __exit__(self, *exc):
        _set_fw_enabled(self._prev)
        return False


def _remember(t):
    _with_tangent[next(_ids)] = t


def _set_tangent(t, tangent):
    """Give ``t`` a tangent that leaving the current level removes (for engine code that
    moves a tangent onto an existing tensor, e.g. after an in-place op)."""
    t._fw_grad = tangent
    if tangent is not None:
        _remember(t)


def _restore_tangent(t, tangent):
    """A saved output unpacked by a backward gets its tangent back (forward-over-reverse),
    but only while a level is open: outside one, tangents do not exist."""
    if _current_level >= 0:
        _set_tangent(t, tangent)


# (_restore_tangent and _jvp_hook are connected to the engine in cygrad/_wiring.py)


# ------------------------------------------------------------------------------ levels

def enter_dual_level():
    """Enter a forward-AD level and return its number (always 0: levels do not nest).

    Prefer the ``dual_level()`` context manager, which also leaves the level.

    Examples
    --------
    >>> from cygrad.autograd import forward_ad
    >>> forward_ad.enter_dual_level()
    0
    >>> forward_ad.exit_dual_level()
    """
    global _current_level
    _require_core_support()
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = 0
    return _current_level


def exit_dual_level(*, level=None):
    """Leave the current forward-AD level, removing every tangent created in it.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd import forward_ad
    >>> lvl = forward_ad.enter_dual_level()
    >>> x = forward_ad.make_dual(cygrad.ones(2), cygrad.ones(2))
    >>> forward_ad.exit_dual_level()
    >>> forward_ad.unpack_dual(x).tangent is None
    True
    """
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was "
                           "created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    for t in list(_with_tangent.values()):
        t._fw_grad = None
    _with_tangent.clear()
    _current_level = -1


class dual_level:
    """Context manager (or decorator) for forward AD: enters a level, leaves it on exit.

    Tangents only exist inside the level; leaving it removes them all.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd import forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 0.0]))
    ...     y = x * x
    ...     fwAD.unpack_dual(y).tangent.tolist()
    [2.0, 0.0]
    >>> fwAD.unpack_dual(y).tangent is None
    True
    """

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper


def _check_level(level, what):
    if level is None:
        level = _current_level
    if level < 0:
        return level
    if level != _current_level:
        raise RuntimeError(f"{what}: forward AD level {level} does not exist (the current level is "
                           f"{_current_level}).")
    return level


# ------------------------------------------------------------------ dual tensors

class UnpackedDualTensor(NamedTuple):
    """``(primal, tangent)`` as returned by ``unpack_dual``."""
    primal: TensorBase
    tangent: Optional[TensorBase]


def _alias(t):
    """A view of ``t`` with the same geometry: a new tensor object sharing t's memory and,
    if t requires grad (grad mode on), its history, but not its tangent."""
    with _fw_disabled():
        return t._as_strided_any(tuple(t.shape), t.stride(), t.storage_offset())


class _MakeDual(Function):
    """The primal's memory under a new tensor object, gradients passing straight through.

    Not a view of the primal: an in-place op on the dual tensor then updates the dual's
    tangent only, not the primal's (as in PyTorch, whose make_dual result is a view
    that is special-cased for this)."""
    _node_name = "MakeDualBackward0"

    @staticmethod
    def forward(ctx, x):
        return _C._detach(x)

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, t):
        return t


def _significant_strides(t):
    return tuple(s for n, s in zip(t.shape, t.stride()) if n > 1)


def _overlaps_itself(shape, strides):
    """Can two elements share memory? (sufficient test: sort dims by stride)."""
    span = 0
    for s, n in sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1):
        if s <= span:
            return True
        span += s * (n - 1)
    return False


def _laid_out_like(tangent, primal):
    """``tangent``, or a copy of it with ``primal``'s strides, so that every view of the
    primal can be replayed on the tangent (tangents of views are then views)."""
    if _significant_strides(tangent) == _significant_strides(primal):
        return tangent
    shape, strides = tuple(primal.shape), primal.stride()
    if primal.is_contiguous() or _overlaps_itself(shape, strides):
        return tangent.contiguous()
    lo = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0 and n > 0)
    hi = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0 and n > 0)
    flat = _C._empty((hi - lo + 1,), tangent.dtype, tangent.device)
    out = flat._as_strided_any(shape, strides, -lo)
    _C._copy_into(out, tangent)
    return out


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: an alias of ``tensor`` whose tangent is ``tangent``.

    The result shares ``tensor``'s memory (and, if it requires grad, its history:
    gradients flow back to ``tensor``); ops on it carry the tangent forward.
    ``tangent`` is kept as is when it has ``tensor``'s layout, else copied into that
    layout.

    Parameters
    ----------
    tensor : Tensor
        The primal value (floating point).
    tangent : Tensor
        The direction: same shape as ``tensor`` (floating point).
    level : int, optional
        The forward-AD level (default: the current one).

    Raises
    ------
    RuntimeError
        Outside a ``dual_level``, on a shape mismatch, or when ``tensor`` already has a
        tangent.
    ValueError
        If ``tensor`` or ``tangent`` is not floating point.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd import forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(cygrad.tensor([0.0, 2.0]), cygrad.tensor([1.0, 0.5]))
    ...     fwAD.unpack_dual(x * x * x).tangent.tolist()     # 3 x^2 dx
    [0.0, 6.0]
    """
    _require_core_support()
    level = _check_level(level, "make_dual")
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    for name, t in (("tensor", tensor), ("tangent", tangent)):
        if not isinstance(t, TensorBase):
            raise TypeError(f"make_dual(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the "
            f"given forward gradient is of size {list(tangent.shape)}.")
    if tangent.device != tensor.device:
        raise RuntimeError(f"Trying to set a forward gradient on {tangent.device} for a Tensor on "
                           f"{tensor.device}: both must be on the same device.")
    if tensor._fw_grad is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    dual = _MakeDual.apply(tensor)
    _set_tangent(dual, _laid_out_like(tangent, tensor))
    return dual


def unpack_dual(tensor, *, level=None):
    """Split a tensor into ``(primal, tangent)``.

    ``primal`` is a view of ``tensor`` without tangent (it keeps reverse-mode history);
    ``tangent`` is its tangent as is, or None. Outside a level, ``tensor`` itself is
    returned as the primal.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd import forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(cygrad.tensor([3.0]), cygrad.tensor([1.0]))
    ...     p, t = fwAD.unpack_dual(x * x)
    ...     p.tolist(), t.tolist()
    ([9.0], [6.0])
    """
    if not isinstance(tensor, TensorBase):
        raise TypeError(f"unpack_dual(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    level = _check_level(level, "unpack_dual")
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_alias(tensor), tensor._fw_grad)


# ------------------------------------------------------------------ the engine's hook

def saved_for_jvp(ctx):
    """The tensors ``forward`` passed to ``ctx.save_for_backward``, for use in ``jvp``.

    Inside ``jvp``, ``ctx.saved_tensors`` returns the same tensors; the built-in ops
    use both spellings.
    """
    to_save = ctx._to_save_fw if ctx._to_save_fw is not None else ctx._to_save
    return to_save if to_save is not None else ()


def _conform(tangent, out, cls, i):
    """Give a jvp's tangent the output's shape, dtype and device."""
    if not isinstance(tangent, TensorBase):
        raise TypeError(f"function {cls.__name__}.jvp returned a tangent of type "
                        f"{type(tangent).__name__} for output {i}; expected a Tensor or None")
    if tangent.shape != out.shape:
        try:
            tangent = tangent.expand(tuple(out.shape))
        except RuntimeError:
            raise RuntimeError(f"Function {cls.__name__}.jvp returned an invalid tangent for "
                               f"output {i} - got {list(tangent.shape)} but expected shape "
                               f"compatible with {list(out.shape)}") from None
    if tangent.dtype != out.dtype or tangent.device != out.device:
        tangent = tangent.to(dtype=out.dtype, device=out.device)
    return tangent


def _contains(seq, x):
    return seq is not None and any(y is x for y in seq)


def _jvp_hook(cls, ctx, args, outputs):
    """Called by ``function_apply`` after ``forward`` when an argument carries a tangent."""
    if cls.jvp is Function.jvp:
        raise NotImplementedError(
            f"Trying to use forward AD with {cls.__name__} that does not support it: the "
            f"Function {cls.__name__} does not implement jvp (add a static method "
            f"jvp(ctx, *tangents) to it).")
    tangents = [a._fw_grad if isinstance(a, TensorBase) else None for a in args]
    single = not isinstance(outputs, tuple)
    outs = [outputs] if single else list(outputs)
    with _fw_disabled():
        ctx._in_jvp = True        # ctx.saved_tensors now serves the jvp
        try:
            result = cls.jvp(ctx, *tangents)
        finally:
            ctx._in_jvp = False
            ctx._to_save_fw = None
        if single and isinstance(result, tuple) and len(result) == 1:
            result = result[0]
        results = [result] if single else (list(result) if isinstance(result, (tuple, list))
                                           else [result])
        if len(results) != len(outs):
            raise RuntimeError(f"function {cls.__name__}.jvp returned an incorrect number of "
                               f"tangents (expected {len(outs)}, got {len(results)})")
        for i, (out, tangent) in enumerate(zip(outs, results)):
            if (tangent is None or not isinstance(out, TensorBase)
                    or not (out.is_floating_point() or out.is_complex())
                    or _contains(ctx._non_differentiable, out)):
                continue
            tangent = _conform(tangent, out, cls, i)
            if _contains(args, out) and not _contains(ctx._dirty, out):
                # an input returned as is: the output is a new tensor (as the engine
                # does when recording), else the input would get the output's tangent
                out = _C._detach(out)
                outs[i] = out
            _set_tangent(out, tangent)
    return outs[0] if single else tuple(outs)

