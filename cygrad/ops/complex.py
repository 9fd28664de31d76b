"""Complex numbers: the functions only complex tensors need, and their autograd rules.

``complex64``/``complex128`` tensors go through the same dispatcher as real ones (the
CPU backend runs NumPy's complex ufuncs). This module adds what is specific to them:
building them (``complex``, ``polar``), taking them apart (``real``/``imag`` and
``view_as_real``/``view_as_complex``, all views), ``conj``, ``angle``, ``sgn`` and
the predicates ``is_complex``/``isreal``/``is_conj``.

Gradients follow PyTorch's convention: for a real loss ``L`` of a complex ``z = x + iy``
the gradient is ``dL/dx + i dL/dy`` (twice the conjugate Wirtinger derivative
``dL/dz*``). For an output ``s`` of ``z`` with incoming gradient ``g`` the input's
gradient is ``conj(ds/dz) g + (ds/dz*) conj(g)``; for a holomorphic ``s`` the second
term vanishes, which is why the elementwise ops multiply by ``conj(f'(z))``.

``conj`` copies (PyTorch flips a lazy "conjugate bit" instead), so ``is_conj`` is
always False and ``resolve_conj`` returns its input.

Examples
--------
>>> import cygrad
>>> z = cygrad.complex(cygrad.tensor([3.0]), cygrad.tensor([4.0]))
>>> z.abs().tolist(), z.conj().tolist()
([5.0], [(3-4j)])
"""
from .._core import tensor as _C
from .._core import engine as _E
from .._core.tensor import TensorBase, view_as_real, view_as_complex
from .._tensor import Tensor, tensor_method
from ..autograd.function import Function
from ._argcheck import not_tensor
from .creation import empty, ones_like
from .shape.broadcasting import broadcast_shapes

OPS = _C.ELEMENTWISE_OPS

__all__ = ["is_complex", "is_conj", "conj", "conj_physical", "resolve_conj", "resolve_neg",
           "real", "imag", "angle", "sgn", "isreal", "complex", "polar", "view_as_real",
           "view_as_complex", "adjoint"]


def _check(input, opname):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)


# -------------------------------------------------------------------------- predicates

@tensor_method
def is_conj(input):
    """Whether ``input``'s conjugate bit is set: always False in cygrad, whose
    ``conj`` copies instead of flipping a bit.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1j]).conj().is_conj()
    False
    """
    _check(input, "is_conj")
    return False


def is_complex(input):
    """True for a tensor of a complex dtype.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_complex(cygrad.tensor([1j])), cygrad.is_complex(cygrad.tensor([1.0]))
    (True, False)
    """
    _check(input, "is_complex")
    return input.is_complex()


@tensor_method
def resolve_conj(input):
    """``input`` with its conjugate bit applied: ``input`` itself, as no cygrad tensor
    has that bit set.

    Examples
    --------
    >>> import cygrad
    >>> z = cygrad.tensor([1j])
    >>> z.resolve_conj() is z
    True
    """
    _check(input, "resolve_conj")
    return input


@tensor_method
def resolve_neg(input):
    """``input`` with its negative bit applied: ``input`` itself (cygrad has no such bit).

    Examples
    --------
    >>> import cygrad
    >>> z = cygrad.tensor([1j])
    >>> z.resolve_neg() is z
    True
    """
    _check(input, "resolve_neg")
    return input


@tensor_method
def isreal(input):
    """Elementwise: is the imaginary part zero? (All True for a real tensor.)

    Examples
    --------
    >>> import cygrad
    >>> cygrad.isreal(cygrad.tensor([1 + 0j, 2j])).tolist()
    [True, False]
    """
    _check(input, "isreal")
    if input.is_complex():
        return input.imag == 0
    return ones_like(input, dtype=bool)


# ------------------------------------------------------------------- parts of a number

def real(input):
    """The real parts, a view of ``input`` (``input`` itself when it is real).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.real(cygrad.tensor([1 + 2j])).tolist()
    [1.0]
    """
    _check(input, "real")
    return input.real


def imag(input):
    """The imaginary parts, a view of a complex ``input``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.imag(cygrad.tensor([1 + 2j])).tolist()
    [2.0]
    """
    _check(input, "imag")
    return input.imag


class ViewAsReal(Function):
    """``view_as_real(z)``: the (real, imag) pairs of ``z``; each pair's gradient is
    ``(dL/dx, dL/dy)``, which read as one complex number is z's gradient."""
    _node_name = "ViewAsRealBackward0"

    @staticmethod
    def forward(ctx, z, _unused=None):
        return view_as_real(z)

    @staticmethod
    def backward(ctx, grad):
        return view_as_complex(grad.contiguous()), None

    @staticmethod
    def jvp(ctx, t, _unused=None):
        return view_as_real(t)


class ViewAsComplex(Function):
    """``view_as_complex(x)``: the inverse of ``view_as_real``, gradients included."""
    _node_name = "ViewAsComplexBackward0"

    @staticmethod
    def forward(ctx, x, _unused=None):
        return view_as_complex(x)

    @staticmethod
    def backward(ctx, grad):
        return view_as_real(grad), None

    @staticmethod
    def jvp(ctx, t, _unused=None):
        return view_as_complex(t.contiguous())




def register():
    """Record view_as_real/view_as_complex as these Functions, and point the
    dispatcher's rows of ``conj_physical``, ``angle`` and ``sgn`` at theirs: the
    dispatcher calls them when an input needs autograd (called once, from
    ``cygrad/_wiring.py``)."""
    _E._register_view_function(ViewAsReal)
    _E._register_view_function(ViewAsComplex)
    OPS["conj_physical"].function = ConjPhysical
    OPS["angle"].function = Angle
    OPS["sgn"].function = Sgn
    # Angle's forward is exactly "run the kernel, save the input": the engine runs it
    _E._register_fast_forward(Angle, 1, OPS["angle"], False)


# ---------------------------------------------------------------------- conj and angle

class Conj(Function):
    """``conj(z)``: s = z*, so ds/dz = 0 and ds/dz* = 1: the gradient is conj(g)."""
    _node_name = "ConjBackward0"

    @staticmethod
    def forward(ctx, z):
        return _C.unary_op(OPS["conj_physical"], z)

    @staticmethod
    def backward(ctx, grad):
        return conj(grad)

    @staticmethod
    def jvp(ctx, t):
        return conj(t)


class ConjPhysical(Conj):
    _node_name = "ConjPhysicalBackward0"


@tensor_method
def conj(input):
    """The complex conjugate. A real tensor is returned as it is.

    PyTorch returns a lazy view with its conjugate bit set; cygrad returns a new
    tensor holding the conjugates (so writing to it does not change ``input``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.conj(cygrad.tensor([1 + 2j])).tolist()
    [(1-2j)]
    """
    _check(input, "conj")
    if not input.is_complex():
        return input
    return Conj.apply(input)


@tensor_method
def conj_physical(input):
    """The complex conjugate, computed into new memory (a real tensor is returned as
    it is).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.conj_physical(cygrad.tensor([1 - 1j])).tolist()
    [(1+1j)]
    """
    _check(input, "conj_physical")
    if not input.is_complex():
        return input
    return ConjPhysical.apply(input)


def _where_nonzero(z, value):
    """``value`` where ``z != 0``, else 0 (the formulas below divide by |z|)."""
    return value * (z != 0)


def _safe_abs(z):
    """|z|, with 1 where z == 0 so that dividing by it stays finite."""
    return z.abs() + (z == 0)


class Angle(Function):
    """arg z = atan2(y, x): d arg = (x dy - y dx) / |z|^2, so the gradient is
    ``g * i z / |z|^2`` (0 at z = 0); a real input's angle is piecewise constant."""
    _node_name = "AngleBackward0"

    @staticmethod
    def forward(ctx, z):
        ctx.save_for_backward(z)
        return _C.unary_op(OPS["angle"], z)

    @staticmethod
    def backward(ctx, grad):
        z, = ctx.saved_tensors
        if not z.is_complex():
            return grad * 0
        return _where_nonzero(z, grad * (z * 1j) / _safe_abs(z) ** 2)

    @staticmethod
    def jvp(ctx, t):
        z, = ctx.saved_tensors
        if not z.is_complex():
            return t * 0
        return _where_nonzero(z, (conj(z) * t).imag / _safe_abs(z) ** 2)


@tensor_method
def angle(input, *, out=None):
    """The argument of each element, in radians (``atan2(imag, real)``); a real
    tensor gives 0 for non-negative values and pi for negative ones.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.angle(cygrad.tensor([1j, -1 + 0j])).tolist()
    [1.5707963705062866, 3.1415927410125732]
    """
    _check(input, "angle")
    return _C.unary_op(OPS["angle"], input, out)      # (Angle.apply when autograd needs it)


class Sgn(Function):
    """sgn z = z/|z|: ds/dz = 1/(2|z|), ds/dz* = -sgn(z)^2/(2|z|), so the gradient is
    ``(g - sgn(z)^2 conj(g)) / (2|z|)`` (0 at z = 0); for reals it is sign: flat."""
    _node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx, z):
        s = _C.unary_op(OPS["sgn"], z)
        ctx.save_for_backward(z, s)
        return s

    @staticmethod
    def backward(ctx, grad):
        z, s = ctx.saved_tensors
        return Sgn._rule(z, s, grad)

    @staticmethod
    def jvp(ctx, t):
        z, s = ctx.saved_tensors
        return Sgn._rule(z, s, t)

    @staticmethod
    def _rule(z, s, v):
        # the same expression maps a gradient back and a tangent forward: both are
        # (v - s^2 conj(v)) / (2|z|), as ds/dz is real
        if not z.is_complex():
            return v * 0
        return _where_nonzero(z, (v - s * s * conj(v)) / (2 * _safe_abs(z)))


@tensor_method
def sgn(input, *, out=None):
    """``z / |z|`` elementwise (0 where z is 0); the same as ``sign`` for real tensors.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.sgn(cygrad.tensor([3 + 4j, 0j], dtype=cygrad.complex128)).tolist()
    [(0.6+0.8j), 0j]
    """
    _check(input, "sgn")
    return _C.unary_op(OPS["sgn"], input, out)        # (Sgn.apply when autograd needs it)


# ---------------------------------------------------------------------------- building

def _check_parts(a, b, opname):
    if not isinstance(a, TensorBase):
        raise not_tensor(a, opname, "real" if opname == "complex" else "abs")
    if not isinstance(b, TensorBase):
        raise not_tensor(b, opname, "imag" if opname == "complex" else "angle", 2)
    if a.dtype.name not in ("float32", "float64") or b.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_C._torch_type_name(a.dtype)} and {_C._torch_type_name(b.dtype)}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {_C._torch_type_name(a.dtype)} but "
                           f"got scalar type {_C._torch_type_name(b.dtype)} for second argument")


class Complex(Function):
    """``complex(x, y) = x + iy``: the gradient's real part goes to x, its imaginary
    part to y."""
    _node_name = "ComplexBackward0"

    @staticmethod
    def forward(ctx, re, im):
        z = empty(broadcast_shapes(re.shape, im.shape), dtype=re.dtype.to_complex(),
                  device=re.device)
        z.real.copy_(re)
        z.imag.copy_(im)
        return z

    @staticmethod
    def backward(ctx, grad):
        return grad.real, grad.imag

    @staticmethod
    def jvp(ctx, t_re, t_im):
        like = t_re if t_re is not None else t_im
        zero = like * 0
        return complex(t_re if t_re is not None else zero, t_im if t_im is not None else zero)


def complex(real, imag, *, out=None):
    """The complex tensor ``real + i imag`` (float32 parts give complex64, float64
    parts complex128); the two broadcast.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.complex(cygrad.tensor([1.0, 2.0]), cygrad.tensor([0.5, -1.0]))
    tensor([1.+0.5000j, 2.-1.0000j])
    """
    _check_parts(real, imag, "complex")
    z = Complex.apply(real, imag)
    if out is not None:
        out.copy_(z)
        return out
    return z


def polar(abs, angle, *, out=None):
    """The complex tensor with magnitudes ``abs`` and arguments ``angle``:
    ``abs * (cos(angle) + i sin(angle))``.

    Examples
    --------
    >>> import cygrad, math
    >>> z = cygrad.polar(cygrad.tensor([2.0]), cygrad.tensor([math.pi / 2]))
    >>> round(z.imag.item(), 6)
    2.0
    """
    _check_parts(abs, angle, "polar")
    return complex(abs * angle.cos(), abs * angle.sin(), out=out)


@tensor_method
def adjoint(input):
    """The conjugate transpose of the last two dims (``x.mT.conj()``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1j, 2 + 1j]]).adjoint().tolist()
    [[-1j], [(2-1j)]]
    """
    _check(input, "adjoint")
    if input.dim() < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input.dim()}-D tensor.")
    return conj(input.transpose(-2, -1))


Tensor.mH = property(adjoint, doc="The conjugate transpose of the last two dims.")
Tensor.H = property(lambda self: conj(self.t()) if self.dim() == 2 else _H_error(self),
                    doc="The conjugate transpose of a matrix.")


def _H_error(t):
    raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {t.dim()}-D "
                       "tensor.")

