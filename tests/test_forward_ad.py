"""Forward-mode AD (cygrad.autograd.forward_ad).

Tangents are checked against independent references: the Jacobian built by cygrad's
reverse mode (J @ v, in float64), finite differences (``gradcheck(check_forward_ad=True)``
on every op-table row declaring ``supports_forward_ad``) and, when installed, PyTorch's
own forward AD on the same inputs. Level handling and errors are compared with
PyTorch's behaviour (those tests skip without torch).
"""
import numpy as np
import pytest

import cygrad
from cygrad._core import tensor as _C
from cygrad.autograd import forward_ad as fwAD
from cygrad.autograd import gradcheck
from opinfo import op_db
from opinfo._autograd import call, function_of, leaves, params, slots, usable_samples

try:
    import torch
    from torch.autograd import forward_ad as tfwAD
except ImportError:       # tests whose only reference is torch skip themselves
    torch = tfwAD = None


def _torch():
    """torch, for a test whose reference it is (skips that test without it)."""
    return pytest.importorskip("torch", reason="PyTorch is the reference of this test")


# ------------------------------------------------------------- the op table, generated

AUTOGRAD_ROWS = [op for op in op_db if op.supports_autograd]


@pytest.mark.parametrize("op_info", params(AUTOGRAD_ROWS, "test_forward_ad"))
def test_forward_ad(op_info):
    """supports_forward_ad: the Jacobian built from forward mode (jvp per input
    direction) equals finite differences, on up to three samples. Without the flag,
    forward mode must refuse the op (PyTorch: 'Trying to use forward AD with ...')."""
    for sample in usable_samples(op_info, limit=3):
        where = slots(sample)
        inputs = tuple(leaves(sample, where))
        if op_info.supports_forward_ad:
            assert gradcheck(function_of(op_info, sample, where), inputs,
                             check_forward_ad=True, check_backward_ad=False), \
                f"{op_info.id}[{sample.name}]"
            continue
        with fwAD.dual_level():
            duals = [fwAD.make_dual(t.detach(), cygrad.ones_like(t)) for t in inputs]
            with pytest.raises(RuntimeError, match="forward AD|jvp"):
                call(op_info.op, sample, where, duals)


# ------------------------------------------------------------------------ helpers

def cg(a, requires_grad=False):
    return cygrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def tt(a):
    """A torch tensor (None without torch: the torch reference is then not run)."""
    return None if torch is None else torch.tensor(np.asarray(a, dtype=np.float64))


def arr(t):
    return np.asarray(t.detach().numpy())


def forward_jvp(f, xs, vs):
    """Tangents of f's outputs (a tuple) at xs along vs, by cygrad's forward mode."""
    with fwAD.dual_level():
        duals = [fwAD.make_dual(cg(x), cg(v)) for x, v in zip(xs, vs)]
        outs = f(*duals)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [fwAD.unpack_dual(o) for o in outs]


def reverse_jvp(f, xs, vs):
    """J @ v for each output of f, with J built row by row by cygrad's reverse mode."""
    inputs = [cg(x, requires_grad=True) for x in xs]
    outs = f(*inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    results = []
    for out in outs:
        jv = np.zeros(out.numel())
        for j in range(out.numel()):
            e = np.zeros(out.numel())
            e[j] = 1.0
            grads = cygrad.autograd.grad(out, inputs, cg(e.reshape(tuple(out.shape))),
                                         retain_graph=True, allow_unused=True)
            jv[j] = sum(float((arr(g) * np.asarray(v)).sum()) for g, v in zip(grads, vs)
                        if g is not None)
        results.append(jv.reshape(tuple(out.shape)))
    return results


def torch_jvp(f, xs, vs):
    with tfwAD.dual_level():
        duals = [tfwAD.make_dual(tt(x), tt(v)) for x, v in zip(xs, vs)]
        outs = f(*duals)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return [tfwAD.unpack_dual(o).tangent for o in outs]


def check_against_references(f, xs, vs, torch_f=None):
    """Forward-mode tangents vs J @ v from reverse mode, and vs torch when installed."""
    ours = forward_jvp(f, xs, vs)
    rev = reverse_jvp(f, xs, vs)
    assert len(ours) == len(rev)
    for (primal, tangent), r in zip(ours, rev):
        assert tangent is not None
        assert tuple(tangent.shape) == tuple(primal.shape)
        np.testing.assert_allclose(arr(tangent), r, rtol=1e-10, atol=1e-12)
    if torch is None:
        return
    ref = torch_jvp(torch_f or f, xs, vs)
    assert len(ref) == len(ours)
    for (_, tangent), t in zip(ours, ref):
        np.testing.assert_allclose(arr(tangent), t.numpy(), rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------- elementwise ops

POSITIVE = {"log", "log2", "log10", "sqrt", "rsqrt", "reciprocal"}
UNIT = {"asin", "acos"}
UNARY = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos",
         "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "relu", "erf", "erfc",
         "abs", "neg", "reciprocal", "square", "frac", "sign", "floor", "ceil", "trunc", "round"]


def unary_input(name, rng, shape=(2, 3)):
    if name in POSITIVE:
        return rng.uniform(0.3, 2.0, shape)
    if name in UNIT:
        return rng.uniform(-0.8, 0.8, shape)
    if name == "log1p":
        return rng.uniform(-0.5, 2.0, shape)
    x = rng.uniform(-1.5, 1.5, shape)
    x[np.abs(x) < 0.1] = 0.5        # keep away from kinks (abs, relu, sign)
    return x


@pytest.mark.parametrize("name", UNARY)
def test_unary_tangent_matches_reverse_mode_and_torch(name, rng):
    x = unary_input(name, rng)
    v = rng.standard_normal(x.shape)
    check_against_references(lambda a: getattr(a, name)(), [x], [v])


BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2", "hypot", "fmod",
          "remainder"]


def binary_inputs(name, rng, shape_a=(2, 3), shape_b=(2, 3)):
    if name == "pow":       # positive bases (either operand may be the base)
        return rng.uniform(0.5, 2.0, shape_a), rng.uniform(0.5, 1.5, shape_b)
    a = rng.uniform(-2, 2, shape_a)
    b = rng.uniform(0.5, 1.5, shape_b) * rng.choice([-1, 1], shape_b)
    return a, b


@pytest.mark.parametrize("name", BINARY)
def test_binary_both_tangents(name, rng):
    a, b = binary_inputs(name, rng)
    va, vb = rng.standard_normal(a.shape), rng.standard_normal(b.shape)
    check_against_references(lambda x, y: getattr(x, name)(y), [a, b], [va, vb])


@pytest.mark.parametrize("name", BINARY)
def test_binary_broadcast_one_tangent(name, rng):
    # only the (3, 1) operand is dual; the (1, 4) one is a constant
    a, b = binary_inputs(name, rng, (3, 1), (1, 4))
    va = rng.standard_normal(a.shape)
    const_cg, const_t = cg(b), tt(b)
    check_against_references(lambda x: getattr(x, name)(const_cg), [a], [va],
                             torch_f=lambda x: getattr(x, name)(const_t))
    # and the constant on the left
    check_against_references(lambda x: getattr(const_cg, name)(x.abs() + 0.5), [a], [va],
                             torch_f=lambda x: getattr(const_t, name)(x.abs() + 0.5))


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "maximum", "minimum",
                                  "atan2", "hypot", "fmod", "remainder"])
def test_binary_with_python_number(name, rng):
    a = rng.uniform(0.5, 2.0, (4,))
    va = rng.standard_normal(4)
    # maximum/minimum/atan2/hypot take a tensor ``other`` only (as torch): a 0-d one
    const = cg(1.3) if name in ("maximum", "minimum", "atan2", "hypot") else 1.3
    check_against_references(lambda x: getattr(x, name)(const), [a], [va],
                             torch_f=lambda x: getattr(x, name)(tt(1.3)))
    if name not in ("maximum", "minimum", "atan2", "hypot", "fmod", "remainder"):
        # number on the left goes through the reflected operator
        op = {"add": "__radd__", "sub": "__rsub__", "mul": "__rmul__", "div": "__rtruediv__",
              "pow": "__rpow__"}[name]
        check_against_references(lambda x: getattr(x, op)(1.3), [a], [va])


def test_maximum_tie_takes_mean_of_tangents():
    _torch()
    with fwAD.dual_level():
        a = fwAD.make_dual(cg([1.0, 2.0]), cg([1.0, 1.0]))
        b = fwAD.make_dual(cg([1.0, 3.0]), cg([3.0, 3.0]))
        hi = fwAD.unpack_dual(cygrad.maximum(a, b)).tangent
        lo = fwAD.unpack_dual(cygrad.minimum(a, b)).tangent
    with tfwAD.dual_level():
        ta = tfwAD.make_dual(tt([1.0, 2.0]), tt([1.0, 1.0]))
        tb = tfwAD.make_dual(tt([1.0, 3.0]), tt([3.0, 3.0]))
        thi = tfwAD.unpack_dual(torch.maximum(ta, tb)).tangent
        tlo = tfwAD.unpack_dual(torch.minimum(ta, tb)).tangent
    np.testing.assert_array_equal(arr(hi), thi.numpy())
    np.testing.assert_array_equal(arr(lo), tlo.numpy())


def test_composite_function(rng):
    x, y = rng.uniform(0.5, 1.5, (3,)), rng.uniform(-1, 1, (3,))
    vx, vy = rng.standard_normal(3), rng.standard_normal(3)

    def f(a, b):
        h = (a * b).sin() / a.sqrt() + b.tanh() ** 3
        return h, (h - a).exp()
    check_against_references(f, [x, y], [vx, vy])


def test_float32_tangent_and_dtype_promotion(rng):
    with fwAD.dual_level():
        x = fwAD.make_dual(cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 1.0]))
        y = x * cygrad.tensor([3.0, 4.0], dtype=cygrad.float64)
        t = fwAD.unpack_dual(y).tangent
        assert x.dtype == cygrad.float32
        assert t.dtype == cygrad.float64 == y.dtype
        np.testing.assert_allclose(arr(t), [3.0, 4.0])


def test_non_differentiable_results_have_no_tangent():
    with fwAD.dual_level():
        x = fwAD.make_dual(cg([1.0, -2.0]), cg([1.0, 1.0]))
        assert fwAD.unpack_dual(x > 0).tangent is None
        assert fwAD.unpack_dual(x == x).tangent is None
        # piecewise constant ops have a zero tangent, as in PyTorch
        np.testing.assert_array_equal(arr(fwAD.unpack_dual(x.floor()).tangent), [0.0, 0.0])


def test_tangents_do_not_get_tangents():
    with fwAD.dual_level():
        x = fwAD.make_dual(cg([1.0, 2.0]), cg([1.0, 1.0]))
        t = fwAD.unpack_dual(x.exp() * x).tangent
        assert t._fw_grad is None
        assert fwAD.unpack_dual(t).tangent is None


def test_forward_mode_ignores_no_grad():
    with fwAD.dual_level():
        x = fwAD.make_dual(cg([0.5]), cg([2.0]))
        with cygrad.no_grad():
            y = x.exp()
        np.testing.assert_allclose(arr(fwAD.unpack_dual(y).tangent), 2 * np.exp([0.5]))


# ------------------------------------------------------------------------- views

VIEWS = {
    "slice": lambda x: x[1:, ::2],
    "transpose": lambda x: x.transpose(0, 1),
    "t": lambda x: x.t(),
    "reshape": lambda x: x.reshape(4, 3),
    "view_flat": lambda x: x.reshape(-1),
    "permute": lambda x: x.permute(1, 0),
    "select": lambda x: x[2],
    "unsqueeze": lambda x: x.unsqueeze(1),
    "expand": lambda x: x[:, :1].expand(3, 5),
    "diagonal": lambda x: x.diagonal(),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 4), 1),
    "chain": lambda x: x.t()[1:].reshape(-1)[::2],
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_tangent_matches_references(name, rng):
    x = rng.standard_normal((3, 4))
    v = rng.standard_normal((3, 4))
    view = VIEWS[name]
    check_against_references(lambda a: view(a) * 2.0, [x], [v])
    # the tangent of the view itself (no op after it)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(view(fwAD.make_dual(cg(x), cg(v)))).tangent
    np.testing.assert_array_equal(arr(t), arr(view(cg(v))))   # the view of the tangent
    if torch is None:
        return
    with tfwAD.dual_level():
        ref = tfwAD.unpack_dual(view(tfwAD.make_dual(tt(x), tt(v)))).tangent
    np.testing.assert_array_equal(arr(t), ref.numpy())


def test_multi_output_views(rng):
    x, v = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    check_against_references(lambda a: tuple(p * 1.0 for p in a.unbind(0)), [x], [v])
    check_against_references(lambda a: tuple(p * 1.0 for p in a.split(2, 1)), [x], [v])


def test_tangent_of_view_is_a_view_of_the_tangent(rng):
    with fwAD.dual_level():
        base_t = cg(rng.standard_normal((3, 4)))
        x = fwAD.make_dual(cg(rng.standard_normal((3, 4))), base_t)
        t = fwAD.unpack_dual(x[1:, ::2].t()).tangent
        assert np.shares_memory(_C._ndarray(t), _C._ndarray(base_t))


def test_non_contiguous_primal_and_tangent(rng):
    x = rng.standard_normal((4, 3))
    v = rng.standard_normal((3, 4))
    with fwAD.dual_level():
        primal = cg(x).t()                        # strides (1, 3)
        tangent = cg(v)                           # contiguous: laid out differently
        d = fwAD.make_dual(primal, tangent)
        stored = fwAD.unpack_dual(d).tangent
        assert stored.stride() == primal.stride()  # copied into the primal's layout
        out = fwAD.unpack_dual(d[1:, ::2].exp()).tangent
    expected = v[1:, ::2] * np.exp(x.T[1:, ::2])
    np.testing.assert_allclose(arr(out), expected, rtol=1e-12)


def test_view_of_op_result_with_foreign_tangent_layout(rng):
    # a view whose base's tangent has another layout is gathered, not replayed
    x, v = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    with fwAD.dual_level():
        d = fwAD.make_dual(cg(x), cg(v))
        y = d * 1.0
        y._fw_grad = cg(v.T.copy()).t()           # same values, transposed layout
        t = fwAD.unpack_dual(y[1:, 1:3]).tangent
    np.testing.assert_array_equal(arr(t), v[1:, 1:3])


def test_clone_and_to(rng):
    x, v = rng.standard_normal(3), rng.standard_normal(3)
    check_against_references(lambda a: a.clone() * 3.0, [x], [v])
    with fwAD.dual_level():
        base_t = cg(v)
        d = fwAD.make_dual(cg(x), base_t)
        c = d.clone()
        ct = fwAD.unpack_dual(c).tangent
        assert not np.shares_memory(_C._ndarray(ct), _C._ndarray(base_t))
        f = fwAD.unpack_dual(d.to(cygrad.float32))
    assert f.primal.dtype == cygrad.float32 and f.tangent.dtype == cygrad.float32
    np.testing.assert_allclose(arr(f.tangent), v.astype(np.float32))


def test_inplace_through_copy_slices_updates_base_tangent(rng):
    # an in-place op on a view of a tensor that requires grad runs through CopySlices
    _torch()
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    with fwAD.dual_level():
        leaf = cg(x, requires_grad=True)
        y = fwAD.make_dual(leaf, cg(v)) * 1.0
        y[1:].mul_(y[1:] * 1.0)        # y[1:] = y[1:]**2
        t = fwAD.unpack_dual(y).tangent
    with tfwAD.dual_level():
        tleaf = tt(x).requires_grad_()
        ty = tfwAD.make_dual(tleaf, tt(v)) * 1.0
        ty[1:].mul_(ty[1:] * 1.0)
        ref = tfwAD.unpack_dual(ty).tangent
    np.testing.assert_allclose(arr(t), ref.detach().numpy(), rtol=1e-12)


# ------------------------------------------------------------------ custom Functions

class MyCube(cygrad.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * x * x * ctx.scale * g, None

    @staticmethod
    def jvp(ctx, t_x, t_scale):
        assert t_scale is None          # a number has no tangent
        x, = fwAD.saved_for_jvp(ctx)
        return 3 * x * x * ctx.scale * t_x


class NoJvp(cygrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class PassThrough(cygrad.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x, y * 2

    @staticmethod
    def backward(ctx, gx, gy):
        return gx, gy * 2

    @staticmethod
    def jvp(ctx, tx, ty):
        return tx, (None if ty is None else ty * 2)


def test_custom_function_jvp():
    with fwAD.dual_level():
        x = fwAD.make_dual(cg([1.0, 2.0]), cg([1.0, 0.5]))
        t = fwAD.unpack_dual(MyCube.apply(x, 2.0)).tangent
    np.testing.assert_allclose(arr(t), 3 * np.array([1.0, 4.0]) * 2.0 * np.array([1.0, 0.5]))


def test_function_without_jvp_raises_naming_it():
    with fwAD.dual_level():
        x = fwAD.make_dual(cg([1.0]), cg([1.0]))
        with pytest.raises(RuntimeError, match="NoJvp.*jvp") as info:
            NoJvp.apply(x)
        assert isinstance(info.value, NotImplementedError)
        # without a tangent the Function still works
        assert NoJvp.apply(cg([1.0])).tolist() == [2.0]


def test_multi_output_function_and_input_returned_as_is():
    with fwAD.dual_level():
        x = fwAD.make_dual(cg([1.0]), cg([3.0]))
        y = cg([5.0])                                # no tangent
        a, b = PassThrough.apply(x, y)
        assert a is not x                            # an output is a new tensor
        assert fwAD.unpack_dual(a).tangent.tolist() == [3.0]
        assert fwAD.unpack_dual(b).tangent is None
        assert fwAD.unpack_dual(y).tangent is None   # the input was not given a tangent


# ------------------------------------------------------------------ dual tensors

def test_make_dual_aliases_primal_and_unpack():
    x = cg([1.0, 2.0])
    t = cg([0.5, 0.5])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        assert d is not x
        assert np.shares_memory(_C._ndarray(d), _C._ndarray(x))
        p, tan = fwAD.unpack_dual(d)
        assert tan is t                                # kept as is (same layout)
        assert fwAD.unpack_dual(p).tangent is None     # the primal is not dual
        assert np.shares_memory(_C._ndarray(p), _C._ndarray(x))
        assert fwAD.unpack_dual(x).tangent is None     # the original stays plain
        assert isinstance(fwAD.unpack_dual(d), fwAD.UnpackedDualTensor)


def test_make_dual_keeps_reverse_mode():
    x = cg([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, cg([1.0, 1.0]))
        assert d.requires_grad and d.grad_fn is not None
        y = d.exp()
        primal = fwAD.unpack_dual(y).primal
        assert primal.requires_grad
        g, = cygrad.autograd.grad(primal, x, cg([1.0, 1.0]))
        np.testing.assert_allclose(arr(g), np.exp([1.0, 2.0]))
        np.testing.assert_allclose(arr(fwAD.unpack_dual(y).tangent), np.exp([1.0, 2.0]))


def make_dual_error(lib_fw, lib_tensor, primal, tangent, enter=True):
    if enter:
        with lib_fw.dual_level():
            return _capture(lambda: lib_fw.make_dual(lib_tensor(primal), lib_tensor(tangent)))
    return _capture(lambda: lib_fw.make_dual(lib_tensor(primal), lib_tensor(tangent)))


def _capture(fn):
    try:
        fn()
    except Exception as e:      # noqa: BLE001 - comparing exception types with torch
        return type(e), str(e)
    return None, None


@pytest.mark.parametrize("case", ["no_level", "shape", "int_primal", "int_tangent"])
def test_make_dual_errors_match_torch(case):
    _torch()
    primal = {"int_primal": np.arange(3)}.get(case, np.zeros(3))
    tangent = {"shape": np.zeros(4), "int_tangent": np.arange(3)}.get(case, np.ones(3))
    enter = case != "no_level"
    ours = make_dual_error(fwAD, cygrad.tensor, primal, tangent, enter)
    ref = make_dual_error(tfwAD, torch.tensor, primal, tangent, enter)
    assert ref[0] is not None
    assert ours[0] is ref[0]
    assert ours[1] == ref[1].replace("torch.", "cygrad.")


def test_make_dual_on_dual_raises():
    with fwAD.dual_level():
        d = fwAD.make_dual(cg([1.0]), cg([1.0]))
        with pytest.raises(RuntimeError,
                           match="already has a forward gradient at the same level 0"):
            fwAD.make_dual(d, cg([1.0]))
        with pytest.raises(TypeError):
            fwAD.make_dual(cg([1.0]), 3)
        with pytest.raises(TypeError):
            fwAD.unpack_dual(3)


def test_float32_primal_with_float64_tangent_is_kept_like_torch():
    _torch()
    with fwAD.dual_level():
        d = fwAD.make_dual(cygrad.zeros(2), cygrad.ones(2, dtype=cygrad.float64))
        ours = fwAD.unpack_dual(d).tangent.dtype
    with tfwAD.dual_level():
        ref = tfwAD.unpack_dual(tfwAD.make_dual(torch.zeros(2),
                                                torch.ones(2, dtype=torch.float64))).tangent.dtype
    assert ours.name == str(ref).replace("torch.", "")


# ------------------------------------------------------------------------ levels

def test_level_numbers_and_nesting_like_torch():
    _torch()
    with fwAD.dual_level() as lvl:
        assert lvl == 0
        ours = _capture(lambda: fwAD.enter_dual_level())
    with tfwAD.dual_level():
        ref = _capture(lambda: tfwAD.enter_dual_level())
    assert ours == ref and ours[0] is RuntimeError
    assert fwAD.enter_dual_level() == 0        # a new level after leaving the old one
    fwAD.exit_dual_level()
    assert _capture(fwAD.exit_dual_level) == _capture(tfwAD.exit_dual_level)


def test_exit_removes_every_tangent_of_the_level():
    x = cg([1.0, 2.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, cg([1.0, 1.0]))
        y = d.sin()
        v = y[1:]
        assert fwAD.unpack_dual(v).tangent is not None
    for t in (d, y, v):
        assert t._fw_grad is None
        assert fwAD.unpack_dual(t).tangent is None
        assert fwAD.unpack_dual(t).primal is t      # outside a level: returned as is
    # former duals are plain tensors again: ops on them take the untracked path
    assert (y * 2)._fw_grad is None
    with fwAD.dual_level():
        assert fwAD.unpack_dual(y * 2).tangent is None
        d2 = fwAD.make_dual(x, cg([2.0, 2.0]))       # x can be made dual again
        np.testing.assert_allclose(arr(fwAD.unpack_dual(d2 * d2).tangent), [4.0, 8.0])


def test_level_exits_on_exception():
    with pytest.raises(ValueError):
        with fwAD.dual_level():
            d = fwAD.make_dual(cg([1.0]), cg([1.0]))
            raise ValueError("boom")
    assert d._fw_grad is None
    with fwAD.dual_level() as lvl:               # no level left behind
        assert lvl == 0


def test_dual_level_as_decorator():
    @fwAD.dual_level()
    def tangent_of_square(x, v):
        return fwAD.unpack_dual(fwAD.make_dual(x, v) ** 2).tangent

    np.testing.assert_allclose(arr(tangent_of_square(cg([3.0]), cg([1.0]))), [6.0])
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(cg([1.0]), cg([1.0]))


# ---------------------------------------------------------- in-place ops on duals

def test_inplace_on_plain_dual():
    with fwAD.dual_level():
        d = fwAD.make_dual(cg([1.0, 2.0]), cg([1.0, 1.0]))
        z = cg([3.0, 4.0])
        z.mul_(d)
        np.testing.assert_allclose(arr(fwAD.unpack_dual(z).tangent), [3.0, 4.0])


def test_inplace_on_dual_requiring_grad():
    with fwAD.dual_level():
        y = fwAD.make_dual(cg([1.0, 2.0], requires_grad=True), cg([1.0, 1.0])) * 1.0
        y.mul_(3.0)
        np.testing.assert_allclose(arr(fwAD.unpack_dual(y).tangent), [3.0, 3.0])


def test_inplace_matches_torch():
    _torch()
    def run(lib, fw):
        def T(a):
            return lib.tensor(np.array(a, dtype=np.float64))
        res = []
        with fw.dual_level():
            p = T([1.0, 2.0, 3.0])
            d = fw.make_dual(p, T([1.0, 1.0, 1.0]))
            d.mul_(2)
            res += [fw.unpack_dual(d).tangent, fw.unpack_dual(p).tangent]
            z = T([0.0, 0.0, 0.0])
            z[1:].copy_(d[:2] * 3)          # a plain tensor gets a tangent in its view
            w = T([1.0, 1.0, 1.0]) * 1
            w.add_(d)
            e = d.exp()
            e[0:2].mul_(d[1:])
            res += [fw.unpack_dual(t).tangent for t in (z, w, e)]
        return [None if t is None else np.asarray(t.detach().numpy()) for t in res]

    ours, ref = run(cygrad, fwAD), run(torch, tfwAD)
    assert ref[1] is None and ours[1] is None       # the primal got no tangent
    for o, r in zip(ours, ref):
        if r is not None:
            np.testing.assert_allclose(o, r, rtol=1e-12)


# ---------------------------------------------------------- known engine gaps

def test_forward_over_reverse_through_saved_output():
    x = cg([1.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, cg([1.0]))
        g, = cygrad.autograd.grad(d.exp(), d, cg([1.0]), create_graph=True)
        np.testing.assert_allclose(arr(fwAD.unpack_dual(g).tangent), np.exp([1.0]))
