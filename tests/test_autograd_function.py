"""The custom ``autograd.Function`` API: hand-computed gradients and PyTorch's behaviour
(its error messages and node names, compared only where torch is installed)."""
import numpy as np
import pytest

import cygrad
from cygrad import autograd
from cygrad.autograd import Function, gradcheck, gradgradcheck, once_differentiable

try:
    import torch
except ImportError:       # the comparisons with torch's messages are left out
    torch = None

f64 = cygrad.float64


def _leaf(values, requires_grad=True):
    return cygrad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def _ones_backward(y):
    y.backward(cygrad.ones_like(y))


# ----------------------------------------------------------------------- Functions

class MulAdd(Function):
    """out = a * b + c * scale  (scale: a Python number)."""

    @staticmethod
    def forward(ctx, a, b, c, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a * b + c * scale

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = grad * b if ctx.needs_input_grad[0] else None
        gb = grad * a if ctx.needs_input_grad[1] else None
        gc = grad * ctx.scale if ctx.needs_input_grad[2] else None
        return ga, gb, gc, None


class SaveOutput(Function):
    """exp, saving its output (the standard trick)."""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad * y


class SplitSigns(Function):
    """Two outputs: positive and negative parts."""

    @staticmethod
    def forward(ctx, x):
        pos = x.clamp(min=0)
        neg = x.clamp(max=0)
        ctx.save_for_backward(x)
        return pos, neg

    @staticmethod
    def backward(ctx, g_pos, g_neg):
        x, = ctx.saved_tensors
        mask = (x > 0).to(x.dtype)
        return g_pos * mask + g_neg * (1 - mask)


# ----------------------------------------------------------------------- basics

def test_save_for_backward_and_non_tensor_args():
    a, b, c = _leaf([1.0, 2.0]), _leaf([3.0, 4.0]), _leaf([5.0, 6.0])
    out = MulAdd.apply(a, b, c, 2.5)
    _ones_backward(out)
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(c.grad.numpy(), [2.5, 2.5])
    assert gradcheck(lambda a, b, c: MulAdd.apply(a, b, c, 2.5), (a, b, c))
    assert gradgradcheck(lambda a, b, c: MulAdd.apply(a, b, c, 2.5), (a, b, c))


def test_needs_input_grad():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, n):
            seen["forward"] = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, grad):
            seen["backward"] = ctx.needs_input_grad
            return grad, None, None

    a, b = _leaf([1.0]), _leaf([2.0], requires_grad=False)
    _ones_backward(Probe.apply(a, b, 3))
    assert seen["forward"] == seen["backward"] == (True, False, False)


def test_returning_none_for_input_without_grad():
    a = _leaf([1.0, 2.0])
    b = _leaf([3.0, 4.0], requires_grad=False)
    out = MulAdd.apply(a, b, b, 1.0)
    _ones_backward(out)
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])
    assert b.grad is None


def test_saved_output_is_differentiable_twice():
    x = _leaf([0.5, -0.3])
    assert gradcheck(SaveOutput.apply, (x,))
    assert gradgradcheck(SaveOutput.apply, (x,))


def test_saved_tensors_inplace_check_names_function():
    x = _leaf([1.0, 2.0])
    y = SaveOutput.apply(x)
    y.mul_(2)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*SaveOutputBackward"
                                           r".*is at version 1; expected version 0"):
        _ones_backward(y)


def test_forward_runs_without_recording():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["enabled"] = cygrad.is_grad_enabled()
            y = x * 2
            seen["inner_requires_grad"] = y.requires_grad
            return y

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    y = Probe.apply(_leaf([1.0]))
    assert seen == {"enabled": False, "inner_requires_grad": False}
    assert y.requires_grad and type(y.grad_fn).__name__ == "ProbeBackward"


def test_no_graph_when_no_input_requires_grad_or_no_grad():
    y = SaveOutput.apply(_leaf([1.0], requires_grad=False))
    assert not y.requires_grad and y.grad_fn is None
    with cygrad.no_grad():
        y = SaveOutput.apply(_leaf([1.0]))
    assert not y.requires_grad and y.grad_fn is None


def test_several_outputs():
    x = _leaf([-1.0, 2.0, -3.0])
    pos, neg = SplitSigns.apply(x)
    assert pos.grad_fn is neg.grad_fn
    assert pos.output_nr == 0 and neg.output_nr == 1
    y = pos * 3 + neg * 5
    _ones_backward(y)
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 3.0, 5.0])
    assert gradcheck(SplitSigns.apply, (_leaf([-1.0, 2.0, -3.0]),))


def test_only_one_of_several_outputs_used_gets_zero_grad_for_other():
    seen = {}

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen["g2"] = g2
            return g1 * 2 + g2 * 3

    x = _leaf([1.0, 2.0])
    a, _ = Two.apply(x)
    _ones_backward(a)
    assert seen["g2"] is not None and seen["g2"].tolist() == [0.0, 0.0]   # materialized
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_set_materialize_grads_false_gives_none():
    seen = {}

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen["g"] = (g1, g2)
            out = 0
            if g1 is not None:
                out = out + g1 * 2
            if g2 is not None:
                out = out + g2 * 3
            return out

    x = _leaf([1.0, 2.0])
    _, b = Two.apply(x)
    _ones_backward(b)
    assert seen["g"][0] is None and seen["g"][1] is not None
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_mark_non_differentiable():
    class ValuesAndMask(Function):
        @staticmethod
        def forward(ctx, x):
            mask = (x > 0).to(x.dtype)
            ctx.mark_non_differentiable(mask)
            ctx.save_for_backward(mask)
            return x * mask, mask

        @staticmethod
        def backward(ctx, grad, grad_mask):
            mask, = ctx.saved_tensors
            return grad * mask

    x = _leaf([-1.0, 2.0])
    out, mask = ValuesAndMask.apply(x)
    assert out.requires_grad and not mask.requires_grad and mask.grad_fn is None
    _ones_backward(out)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1.0])


def test_integer_outputs_are_not_differentiable():
    class WithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, cygrad.tensor([1, 2])

        @staticmethod
        def backward(ctx, g, gi):
            return g * 2

    y, idx = WithIndex.apply(_leaf([1.0]))
    assert y.requires_grad and not idx.requires_grad


def test_mark_dirty_inplace_custom_op():
    class MulTwo_(Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    def program(lib, fn):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        h = x * 3
        version = h._version
        out = fn(h)
        assert out is h or lib is cygrad    # torch returns the same object
        assert h._version > version
        y = out * out
        y.backward(lib.ones_like(y))
        return x.grad, type(out.grad_fn).__name__

    cg, cname = program(cygrad, MulTwo_.apply)
    # y = (2 * 3x)^2 = 36 x^2
    np.testing.assert_allclose(cg.numpy(), [72.0, 144.0], rtol=1e-12)
    assert cname == "MulTwo_Backward"
    if torch is None:
        return

    class TMulTwo_(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    tg, tname = program(torch, TMulTwo_.apply)
    np.testing.assert_allclose(cg.numpy(), tg.numpy())
    assert tname == "TMulTwo_Backward"


def test_mark_dirty_on_leaf_requiring_grad_raises():
    class Inc_(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        Inc_.apply(_leaf([1.0]))


def test_input_returned_unchanged_gets_new_identity():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 5

    x = _leaf([1.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and x.grad_fn is None
    assert type(y.grad_fn).__name__ == "IdentityBackward"
    _ones_backward(y)
    assert x.grad.tolist() == [5.0]


# ----------------------------------------------------------------------- errors

def test_once_differentiable_double_backward_raises():
    class Sq(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            assert not cygrad.is_grad_enabled()
            x, = ctx.saved_tensors
            return 2 * x * grad

    x = _leaf([3.0])
    (g,) = autograd.grad(Sq.apply(x), x, cygrad.ones(1, dtype=f64))
    assert g.tolist() == [6.0]
    # as in PyTorch, only a grad_output requiring grad makes the result differentiable
    (g,) = autograd.grad(Sq.apply(x), x, cygrad.ones(1, dtype=f64), create_graph=True)
    assert g.tolist() == [6.0] and not g.requires_grad
    go = cygrad.ones(1, dtype=f64, requires_grad=True)
    (g,) = autograd.grad(Sq.apply(x), x, go, create_graph=True)
    assert g.tolist() == [6.0] and g.requires_grad
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that "
                                           "was marked with @once_differentiable"):
        _ones_backward(g)


def test_wrong_number_of_gradients():
    class TooMany(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    pattern = r"function {}Backward returned an incorrect number of gradients \(expected 1, got 2\)"
    with pytest.raises(RuntimeError, match=pattern.format("TooMany")):
        _ones_backward(TooMany.apply(_leaf([1.0])))
    if torch is None:
        return

    class TTooMany(torch.autograd.Function):       # torch's message is the same
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    ty = TTooMany.apply(torch.tensor([1.0], requires_grad=True))
    with pytest.raises(RuntimeError, match=pattern.format("TTooMany")):
        ty.backward(torch.ones(1))


def test_extra_none_gradients_are_accepted():
    class ExtraNone(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None

    x = _leaf([1.0])
    _ones_backward(ExtraNone.apply(x))
    assert x.grad.tolist() == [2.0]


def test_wrong_gradient_shape():
    class BadShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return cygrad.ones((3, 5), dtype=f64)

    msg = r"Function {}Backward returned an invalid gradient at index 0 - got \[3, 5\] but " \
          r"expected shape compatible with \[2\]"
    with pytest.raises(RuntimeError, match=msg.format("BadShape")):
        _ones_backward(BadShape.apply(_leaf([1.0, 2.0])))
    if torch is None:
        return

    class TBadShape(torch.autograd.Function):      # torch's message is the same
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return torch.ones(3, 5)

    ty = TBadShape.apply(torch.ones(2, requires_grad=True))
    with pytest.raises(RuntimeError, match=msg.format("TBadShape")):
        ty.backward(torch.ones(2))


def test_broadcastable_gradient_is_reduced():
    class Expanding(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad.expand(4, 2)        # broadcast-compatible with (2,)

    x = _leaf([1.0, 2.0])
    _ones_backward(Expanding.apply(x))
    assert x.grad.tolist() == [4.0, 4.0]


def test_tensor_stored_on_ctx_warns():
    class Stores(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    with pytest.warns(UserWarning, match=r"Stores\.forward stored a tensor as ctx\.x.*"
                                         r"save_for_backward"):
        Stores.apply(_leaf([1.0]))


def test_non_tensor_stored_on_ctx_does_not_warn():
    import warnings

    class Stores(Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            ctx.shape = x.shape
            return x * k

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ones_backward(Stores.apply(_leaf([1.0]), 3))


def test_save_for_backward_rejects_non_tensors():
    class SavesInt(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but "
                                        "argument is of type int"):
        SavesInt.apply(_leaf([1.0]))


def test_instantiation_is_deprecated():
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        MulAdd()


def test_missing_backward_raises():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="implement either the backward"):
        _ones_backward(NoBackward.apply(_leaf([1.0])))


# ----------------------------------------------------------------------- node names

def test_node_class_names():
    y = MulAdd.apply(_leaf([1.0]), _leaf([2.0]), _leaf([3.0]), 1.0)
    assert type(y.grad_fn).__name__ == "MulAddBackward"
    assert y.grad_fn.name() == "MulAddBackward"
    assert isinstance(y.grad_fn, autograd.Node)

    class Custom(Function):
        _node_name = "CustomNameBackward0"

        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    assert Custom.apply(_leaf([1.0])).grad_fn.name() == "CustomNameBackward0"
    if torch is None:
        return
    tx = torch.ones(1, requires_grad=True)      # torch names a Function's node the same way

    class TMulAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    assert type(TMulAdd.apply(tx).grad_fn).__name__ == "TMulAddBackward"


def test_ctx_is_the_node_and_next_functions():
    a, b = _leaf([1.0]), _leaf([2.0], requires_grad=False)
    h = a * 2
    y = MulAdd.apply(h, b, a, 1.0)
    nf = y.grad_fn.next_functions
    assert len(nf) == 3                              # one per tensor argument
    assert nf[0][0] is h.grad_fn and nf[1] == (None, 0)
    assert nf[2][0].name() == "AccumulateGrad" and nf[2][0].variable is a


def test_node_apply_calls_backward():
    y = MulAdd.apply(_leaf([1.0]), _leaf([2.0]), _leaf([3.0]), 4.0)
    ga, gb, gc, gs = y.grad_fn.apply(cygrad.ones(1, dtype=f64))
    assert (ga.tolist(), gb.tolist(), gc.tolist(), gs) == ([2.0], [1.0], [4.0], None)


def test_mark_dirty_on_a_view_reaches_the_base():
    """A user's Function that writes into a view and marks it dirty: the base records
    the write (CopySlices), so gradients through the base see it (as PyTorch)."""
    class AddOne_(cygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, s):
            x.add_(s)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g.sum()

    leaf = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = cygrad.tensor(5.0, requires_grad=True)
    x = leaf.clone()
    AddOne_.apply(x[1:], s)
    assert x.grad_fn.name() == "CopySlices"
    assert x.tolist() == [1.0, 7.0, 8.0]
    (x * cygrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert leaf.grad.tolist() == [1.0, 2.0, 3.0]
    assert s.grad.item() == 5.0                 # 2 + 3: the weights of the written region
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        AddOne_.apply(leaf[1:], s)


def test_mark_dirty_on_a_view_in_forward_mode_updates_the_base_tangent():
    """Forward mode alone (no reverse recording): a Function writing into a view and
    marking it dirty gives the base the new tangent in the view's region (as PyTorch)."""
    import cygrad.autograd.forward_ad as fwAD

    class AddOne_(cygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x, s):
            x.add_(s)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, tx, ts):
            return tx + ts

    with fwAD.dual_level():
        base = fwAD.make_dual(cygrad.zeros(3, dtype=cygrad.float64),
                              cygrad.ones(3, dtype=cygrad.float64))
        s = fwAD.make_dual(cygrad.tensor(5.0, dtype=cygrad.float64),
                           cygrad.tensor(2.0, dtype=cygrad.float64))
        b = base * 1
        AddOne_.apply(b[1:], s)
        assert b.tolist() == [0.0, 5.0, 5.0]
        assert fwAD.unpack_dual(b).tangent.tolist() == [1.0, 3.0, 3.0]
