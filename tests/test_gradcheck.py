"""gradcheck / gradgradcheck: they pass on correct backward formulas and catch wrong ones."""
import re
import warnings

import numpy as np
import pytest

import cygrad
from cygrad.autograd import Function, gradcheck, gradgradcheck, once_differentiable
from cygrad.autograd.gradcheck import GradcheckError

f64 = cygrad.float64


def _rand(*shape, seed=0, requires_grad=True):
    arr = np.random.default_rng(seed).uniform(0.5, 1.5, size=shape)
    return cygrad.tensor(arr, dtype=f64, requires_grad=requires_grad)


# ------------------------------------------------------------------ custom Functions

class Cube(Function):
    """Correct: d(x^3)/dx = 3 x^2, written with cygrad ops (so it is twice differentiable)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x * x


class WrongCube(Function):
    """Wrong: forgets the factor 3."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x * x


class SwappedMul(Function):
    """Wrong: returns the two gradients of a * b in the wrong order."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * a, grad * b


class CubeOnce(Function):
    """Correct first derivative, but the backward is not differentiable."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * x * x


class CubeDetached(Function):
    """Correct first derivative, wrong second: backward uses detached values."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * 3 * (x * x).detach()


class TwoOutputs(Function):
    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        return x * y, x + y

    @staticmethod
    def backward(ctx, g1, g2):
        x, y = ctx.saved_tensors
        return g1 * y + g2, g1 * x + g2


class Noisy(Function):
    """Backward differs from one call to the next (not reentrant)."""
    calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        Noisy.calls += 1
        return grad * (2 + 1e-3 * Noisy.calls)


# ------------------------------------------------------------------------ passing

def test_passes_on_correct_function():
    assert gradcheck(Cube.apply, (_rand(2, 3),)) is True


def test_passes_on_builtin_ops_and_several_inputs_outputs():
    x, y = _rand(3, 4, seed=1), _rand(4, seed=2)
    assert gradcheck(lambda a, b: (a * b + a.exp(), a / b), (x, y))
    assert gradcheck(TwoOutputs.apply, (_rand(3, seed=3), _rand(3, seed=4)))


def test_non_tensor_and_non_differentiable_inputs_are_passed_through():
    x = _rand(3)
    const = _rand(3, seed=5, requires_grad=False)
    assert gradcheck(lambda a, c, s: a * c * s, (x, const, 2.5))


def test_single_tensor_input_not_in_tuple():
    assert gradcheck(lambda a: a.sin(), _rand(4))


def test_non_contiguous_input_perturbed_in_place_and_restored():
    base = _rand(4, 6)
    x = base.detach()[:, ::2].t()          # non-contiguous view of a bigger buffer
    x.requires_grad_(True)
    before = base.detach().numpy().copy()
    assert not x.is_contiguous()
    assert gradcheck(lambda a: a.exp() * a, (x,))
    # every element, including those the view skips, is exactly restored
    np.testing.assert_array_equal(base.detach().numpy(), before)


def test_output_view_of_input():
    # the output aliases the input: numerical differences must copy it before restoring
    assert gradcheck(lambda a: a.t(), (_rand(2, 3),))


def test_zero_sized_input():
    x = cygrad.zeros((0, 3), dtype=f64, requires_grad=True)
    assert gradcheck(lambda a: a * 2, (x,))


def test_zero_sized_input_with_zero_strides():
    # a (3, 0) array may have stride 0 on its size-3 dim: no element overlaps anything
    x = cygrad.zeros((3, 0), dtype=f64).as_strided((3, 0), (0, 1)).requires_grad_(True)
    assert x.stride() == (0, 1)
    assert gradcheck(lambda a: a * 2, (x,))


def test_output_not_requiring_grad_is_ignored():
    x = _rand(3)
    assert gradcheck(lambda a: (a * 2, a > 1.0), (x,))


def test_no_differentiable_output_requires_constant_function():
    x = _rand(3)
    # the output doesn't depend on x at all: passes
    assert gradcheck(lambda a: cygrad.ones(3, dtype=f64), (x,))
    # the output depends on x but the graph was cut: the numerical gradient isn't zero
    assert gradcheck(lambda a: a.detach() * 2, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="expected to be zero"):
        gradcheck(lambda a: a.detach() * 2, (x,))


def test_no_input_requires_grad_raises():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (_rand(3, requires_grad=False),))


def test_float32_input_warns_like_torch():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=r"Input #0 requires gradient and is not a double "
                                          r"precision floating point"):
        gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_float64_input_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gradcheck(lambda a: a * 2, (_rand(2),))


def test_stride_zero_input_rejected():
    x = _rand(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="stride 0"):
        gradcheck(lambda a: a * 2, (x,))


# ------------------------------------------------------------------------ failing

def test_fails_on_wrong_function_returns_false():
    assert gradcheck(WrongCube.apply, (_rand(2, 3),), raise_exception=False) is False


def test_fails_on_wrong_function_raises_runtime_error_subclass():
    with pytest.raises(RuntimeError) as info:
        gradcheck(WrongCube.apply, (_rand(2, 3),))
    assert isinstance(info.value, GradcheckError)
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(info.value)


def test_fails_on_swapped_gradients_names_the_input():
    a, b = _rand(3, seed=1), _rand(3, seed=2)
    with pytest.raises(GradcheckError, match="output 0 with respect to input 0"):
        gradcheck(SwappedMul.apply, (a, b))
    # only b requiring grad: still caught, and input numbering is the call's position
    with pytest.raises(GradcheckError, match="with respect to input 1"):
        gradcheck(SwappedMul.apply, (a.detach(), b))


def test_nondeterministic_backward_caught_by_reentrancy_check():
    with pytest.raises(GradcheckError, match="not reentrant"):
        gradcheck(Noisy.apply, (_rand(3),), atol=1.0, rtol=1.0)
    assert gradcheck(Noisy.apply, (_rand(3),), atol=1.0, rtol=1.0, nondet_tol=1.0)


# ------------------------------------------------------------------------ report

def _report(fn, *inputs):
    with pytest.raises(GradcheckError) as info:
        gradcheck(fn, inputs)
    return str(info.value)


def test_report_shows_both_jacobians_side_by_side_small():
    x = cygrad.tensor([1.0, 2.0], dtype=f64, requires_grad=True)
    msg = _report(WrongCube.apply, x)
    lines = msg.splitlines()
    header = next(l for l in lines if l.split() == ["numerical", "|", "analytical"])
    assert header.index("numerical") < header.index("analytical")
    # d(x^3)/dx = 3x^2 = [3, 12] numerically, the wrong backward says x^2 = [1, 4];
    # the row of output element [1] shows both values, each marked as bad
    row1 = next(l for l in lines if l.strip().startswith("[1]"))
    left, right = row1.split("|")
    nums_left = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", left.split("]", 1)[1])]
    nums_right = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", right)]
    assert nums_left == pytest.approx([0.0, 12.0], abs=1e-4)
    assert nums_right == pytest.approx([0.0, 4.0])
    assert left.count("*") == 1 and right.count("*") == 1
    # zero entries match: not marked
    row0 = next(l for l in lines if l.strip().startswith("[0]"))
    assert row0.count("*") == 2
    assert re.search(r"max abs error 8 at output\[1\] / input\[1\]: numerical 12(\.0+\d*)?, "
                     r"analytical 4", msg)
    assert "max rel error" in msg


def test_report_truncates_large_jacobians_around_worst_element():
    x = _rand(40)
    msg = _report(WrongCube.apply, x)
    table = [l for l in msg.splitlines() if "|" in l]
    assert len(table) <= 14            # header + column labels + a window of rows
    assert "..." in msg                # and says something was left out
    worst = int(np.argmax(3 * x.detach().numpy() ** 2 - x.detach().numpy() ** 2))
    assert f"max abs error" in msg and f"output[{worst}] / input[{worst}]" in msg
    worst_row = next(l for l in table if l.strip().startswith(f"[{worst}]"))
    assert worst_row.count("*") == 2


def test_report_multi_dim_indices():
    msg = _report(WrongCube.apply, _rand(2, 2))
    assert "[1,1]" in msg and "output shape [2, 2]" in msg


# --------------------------------------------------------------------- gradgradcheck

def test_gradgradcheck_passes_on_twice_differentiable_function():
    assert gradgradcheck(Cube.apply, (_rand(2, 3),))
    assert gradgradcheck(lambda a, b: (a * b).sin(), (_rand(3, seed=1), _rand(3, seed=2)))


def test_gradgradcheck_explicit_and_non_contiguous_grad_outputs():
    x = _rand(2, 3)
    go = _rand(2, 3, seed=7)
    assert gradgradcheck(Cube.apply, (x,), (go,))
    assert gradgradcheck(Cube.apply, (x,), gen_non_contig_grad_outputs=True)


def test_gradgradcheck_grad_outputs_are_seeded():
    # two runs on a wrong double backward give the identical report
    msgs = []
    for _ in range(2):
        with pytest.raises(GradcheckError) as info:
            gradgradcheck(CubeDetached.apply, (_rand(3),))
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_gradgradcheck_fails_on_detached_double_backward():
    x = _rand(2, 3)
    assert gradcheck(CubeDetached.apply, (x,))                     # first order is right
    assert gradgradcheck(CubeDetached.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradgradcheck(CubeDetached.apply, (x,))


def test_gradgradcheck_fails_on_once_differentiable():
    x = _rand(3)
    assert gradcheck(CubeOnce.apply, (x,))
    with pytest.raises(RuntimeError, match="once_differentiable"):
        gradgradcheck(CubeOnce.apply, (x,))


def test_matches_torch_gradcheck_verdicts():
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    arr = np.random.default_rng(0).uniform(0.5, 1.5, (3,))

    class TWrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x * x

    tx = torch.tensor(arr, requires_grad=True)
    cx = cygrad.tensor(arr, requires_grad=True)
    assert torch.autograd.gradcheck(TWrong.apply, (tx,), raise_exception=False) is False
    assert gradcheck(WrongCube.apply, (cx,), raise_exception=False) is False
    assert torch.autograd.gradcheck(lambda t: t.exp() * t, (tx,))
    assert gradcheck(lambda t: t.exp() * t, (cx,))


# ------------------------------------------------ forward-mode and dense-cotangent checks

class _ExpWrongJvp(cygrad.autograd.Function):
    """exp with a correct backward and a jvp off by a factor of 2."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.exp()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.exp()

    @staticmethod
    def jvp(ctx, t):
        x, = ctx.saved_tensors
        return 2 * t * x.exp()


class _TripleOneHotOnly(cygrad.autograd.Function):
    """3 * x with a backward that is right only when the incoming gradient is one-hot."""
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return (g != 0).to(g.dtype) * 3


def _x64():
    return cygrad.tensor([0.3, -0.7, 1.2, 2.0], dtype=cygrad.float64, requires_grad=True)


def test_check_forward_ad_passes_on_correct_jvps():
    f = lambda t, u: (t.exp() * u).sin().sum(0, keepdim=True) + t.tanh()
    u = cygrad.tensor([[0.5], [1.5]], dtype=cygrad.float64, requires_grad=True)
    assert gradcheck(f, (_x64(), u), check_forward_ad=True)


def test_check_forward_ad_catches_a_wrong_jvp():
    assert gradcheck(_ExpWrongJvp.apply, (_x64(),))      # backward alone is right
    with pytest.raises(GradcheckError, match="forward mode"):
        gradcheck(_ExpWrongJvp.apply, (_x64(),), check_forward_ad=True)
    assert not gradcheck(_ExpWrongJvp.apply, (_x64(),), check_forward_ad=True,
                         check_backward_ad=False, raise_exception=False)


def test_check_backward_ad_false_skips_the_backward_comparison():
    # the backward is wrong for dense gradients only; without backward checks it passes
    assert gradcheck(_TripleOneHotOnly.apply, (_x64(),), check_backward_ad=False,
                     check_batched_grad=True)


def test_check_batched_grad_catches_a_backward_right_only_for_one_hot_gradients():
    assert gradcheck(_TripleOneHotOnly.apply, (_x64(),))   # one-hot rows cannot see it
    with pytest.raises(GradcheckError, match="dense random cotangent"):
        gradcheck(_TripleOneHotOnly.apply, (_x64(),), check_batched_grad=True)
    assert gradcheck(lambda t: t * 3, (_x64(),), check_batched_grad=True)


def test_save_for_forward_is_what_jvp_reads_from_saved_tensors():
    import cygrad.autograd.forward_ad as fwAD

    class Cube(cygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x * x)       # jvp needs x**2, backward needs x
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x * x * g

        @staticmethod
        def jvp(ctx, t):
            x2, = ctx.saved_tensors
            return 3 * x2 * t

    x = _x64()
    assert gradcheck(Cube.apply, (x,), check_forward_ad=True)
    with fwAD.dual_level():
        y = Cube.apply(fwAD.make_dual(x.detach(), cygrad.ones(4, dtype=cygrad.float64)))
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(),
                                   3 * x.detach().numpy() ** 2)
    with pytest.raises(TypeError, match="save_for_forward"):
        class Bad(cygrad.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_forward(1.0)
                return x * 1
        Bad.apply(x)
