"""grad, vjp, jvp, jacrev, jacfwd, hessian, linearize and their compositions, against
torch.func on the same functions and against finite differences."""
import warnings

import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad.func import (vmap, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
                         linearize, functional_call, stack_module_state,
                         replace_all_batch_norm_modules_, functionalize, debug_unwrap)

torch = pytest.importorskip("torch", reason="values are compared with torch.func")
tf = torch.func


def _c(a):
    return cygrad.from_numpy(np.array(a, dtype=np.float64))


def _t(a):
    return torch.from_numpy(np.array(a, dtype=np.float64))


def _np(x):
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.detach().numpy()


def close(a, b, tol=1e-9):
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            close(a[k], b[k], tol)
        return
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            close(u, v, tol)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# scalar functions of one vector, written once for both libraries
SCALAR = {
    "sin_x": lambda x: (x.sin() * x).sum(),
    "softmax_quad": lambda x: (x.softmax(0) * x * x).sum(),
    "norm_tanh": lambda x: (x.tanh() @ x.exp()) / (1 + (x * x).sum()),
}
VECTOR = {
    "exp_scaled": lambda x: x.exp() * x.sum(),
    "outer_sum": lambda x: (x.unsqueeze(1) * x.sin().unsqueeze(0)).sum(0),
}


@pytest.fixture
def x(rng):
    return rng.standard_normal(4)


@pytest.mark.parametrize("name", SCALAR)
def test_grad_hessian_vs_torch(name, x):
    f = SCALAR[name]
    close(_np(grad(f)(_c(x))), _np(tf.grad(f)(_t(x))))
    close(_np(hessian(f)(_c(x))), _np(tf.hessian(f)(_t(x))))
    close(_np(jacrev(jacrev(f))(_c(x))), _np(tf.hessian(f)(_t(x))))
    close(_np(jacfwd(jacrev(f))(_c(x))), _np(tf.hessian(f)(_t(x))))
    close(_np(grad(grad(lambda v: f(v * _c(x)).sin()))(_c(0.7))),
          _np(tf.grad(tf.grad(lambda v: f(v * _t(x)).sin()))(_t(0.7))))


@pytest.mark.parametrize("name", VECTOR)
def test_jacobians_vs_torch_and_finite_differences(name, x):
    f = VECTOR[name]
    jr, jf = _np(jacrev(f)(_c(x))), _np(jacfwd(f)(_c(x)))
    close(jr, _np(tf.jacrev(f)(_t(x))))
    close(jf, jr)
    eps = 1e-6
    fd = np.stack([(_np(f(_c(x + eps * e))) - _np(f(_c(x - eps * e)))) / (2 * eps)
                   for e in np.eye(len(x))], axis=-1)
    close(jr, fd, tol=1e-6)


def test_vjp_and_jvp_vs_torch(rng, x):
    y = rng.standard_normal((4, 3))
    f = lambda a, b: (a.unsqueeze(0) @ b).exp() * b.sum(0)              # noqa: E731
    out, fn = vjp(f, _c(x), _c(y))
    tout, tfn = tf.vjp(f, _t(x), _t(y))
    ct = rng.standard_normal(tuple(tout.shape))
    close(_np(out), _np(tout))
    close(_np(fn(_c(ct))), _np(tfn(_t(ct))))
    close(_np(fn(_c(ct * 2))), _np(tfn(_t(ct * 2))))      # callable more than once
    tx, ty = rng.standard_normal(4), rng.standard_normal((4, 3))
    o, j = jvp(f, (_c(x), _c(y)), (_c(tx), _c(ty)))
    to, tj = tf.jvp(f, (_t(x), _t(y)), (_t(tx), _t(ty)))
    close(_np(o), _np(to))
    close(_np(j), _np(tj))
    out, jvp_fn = linearize(f, _c(x), _c(y))
    close(_np(jvp_fn(_c(tx), _c(ty))), _np(tj))


def test_vmap_compositions_vs_torch(rng):
    xs = rng.standard_normal((5, 4))
    f = SCALAR["softmax_quad"]
    g = VECTOR["exp_scaled"]
    close(_np(vmap(grad(f))(_c(xs))), _np(tf.vmap(tf.grad(f))(_t(xs))))
    close(_np(vmap(hessian(f))(_c(xs))), _np(tf.vmap(tf.hessian(f))(_t(xs))))
    close(_np(vmap(jacrev(g))(_c(xs))), _np(tf.vmap(tf.jacrev(g))(_t(xs))))
    close(_np(vmap(jacfwd(g))(_c(xs))), _np(tf.vmap(tf.jacfwd(g))(_t(xs))))
    tang = rng.standard_normal((5, 4))
    close(_np(vmap(lambda a, t: jvp(g, (a,), (t,))[1])(_c(xs), _c(tang))),
          _np(tf.vmap(lambda a, t: tf.jvp(g, (a,), (t,))[1])(_t(xs), _t(tang))))
    # grad with respect to an argument that vmap does not map (per-sample gradients of w)
    w = rng.standard_normal(4)
    h = lambda w, a: ((w * a).sin()).sum()                             # noqa: E731
    close(_np(vmap(grad(h), in_dims=(None, 0))(_c(w), _c(xs))),
          _np(tf.vmap(tf.grad(h), in_dims=(None, 0))(_t(w), _t(xs))))
    # vmap of a vjp function: Jacobian rows
    out, fn = vjp(g, _c(xs[0]))
    close(_np(vmap(fn)(_c(np.eye(4)))[0]), _np(tf.jacrev(g)(_t(xs[0]))))


def test_grad_of_vmap(rng):
    xs = rng.standard_normal((3, 4))
    def f(vm):
        return lambda a: vm(lambda r: (r.exp() * r).sum())(a).sum()
    close(_np(grad(f(vmap))(_c(xs))), _np(tf.grad(f(tf.vmap))(_t(xs))))


def test_argnums_has_aux_and_pytrees(rng):
    a, b = rng.standard_normal(3), rng.standard_normal(3)

    def f(p, c):
        loss = (p["w"] * p["v"][0] * c).sum()
        return loss, {"loss": loss}
    ours = grad(f, argnums=(0, 1), has_aux=True)({"w": _c(a), "v": [_c(b)]}, _c(a))
    theirs = tf.grad(f, argnums=(0, 1), has_aux=True)({"w": _t(a), "v": [_t(b)]}, _t(a))
    close(_np(ours[0][0]), _np(theirs[0][0]))
    close(_np(ours[0][1]), _np(theirs[0][1]))
    close(_np(ours[1]["loss"]), _np(theirs[1]["loss"]))
    g, (value, aux) = grad_and_value(f, has_aux=True)({"w": _c(a), "v": [_c(b)]}, _c(a))
    close(_np(value), _np(theirs[1]["loss"]))
    jr = jacrev(lambda p, q: (p * q, p.sum()), argnums=(0, 1))(_c(a), _c(b))
    tjr = tf.jacrev(lambda p, q: (p * q, p.sum()), argnums=(0, 1))(_t(a), _t(b))
    close(_np(jr), _np(tjr))
    jf = jacfwd(lambda p, q: {"o": p * q}, argnums=1)(_c(a), _c(b))
    close(_np(jf["o"]), _np(tf.jacfwd(lambda p, q: {"o": p * q}, argnums=1)(_t(a), _t(b))["o"]))


def test_results_carry_no_graph_at_top_level(x):
    g = grad(SCALAR["sin_x"])(_c(x))
    assert not g.requires_grad
    # but differentiating through grad keeps it when the input requires grad
    xr = _c(x).requires_grad_()
    g = grad(SCALAR["sin_x"])(xr)
    (h,) = cygrad.autograd.grad(g.sum(), xr)
    close(_np(h), _np(tf.hessian(SCALAR["sin_x"])(_t(x)).sum(0)))


def _errors(ns, F):
    x = ns.ones(3)
    return [
        lambda: F.grad(lambda q: q)(x),                    # not a scalar
        lambda: F.grad(lambda q: q.sum())(3.0),            # not a tensor
        lambda: F.grad(lambda q: q.sum(), argnums=2)(x),
        lambda: F.jvp(ns.sin, x, x),                       # primals not a tuple
        lambda: F.jvp(ns.sin, (x,), (ns.ones(2),)),        # shape mismatch
        lambda: F.grad(lambda q: q.sum(), has_aux=True)(x),
        lambda: F.vjp(ns.sin, x)[1](ns.ones(2)),
    ]


@pytest.mark.parametrize("i", range(7))
def test_error_types_match_torch(i):
    with pytest.raises(Exception) as ours:
        _errors(cygrad, cygrad.func)[i]()
    with pytest.raises(Exception) as theirs:
        _errors(torch, torch.func)[i]()
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)


# ---------------------------------------------------------------- modules

def _mlp(ns):
    ns.manual_seed(0)
    return ns.nn.Sequential(ns.nn.Linear(3, 8), ns.nn.Tanh(), ns.nn.Linear(8, 2))


def test_functional_call_and_per_sample_grads(rng):
    m = _mlp(cygrad).double()
    tm = _mlp(torch).double()
    params = {k: _c(rng.standard_normal(tuple(v.shape))) for k, v in m.named_parameters()}
    tparams = {k: _t(_np(v)) for k, v in params.items()}
    x, y = rng.standard_normal((6, 3)), rng.standard_normal((6, 2))
    close(_np(functional_call(m, params, (_c(x),))), _np(tf.functional_call(tm, tparams, (_t(x),))))

    def loss(ns, mod):
        return lambda p, a, b: ns.nn.functional.mse_loss(
            (cygrad.func if ns is cygrad else tf).functional_call(mod, p, (a,)), b)
    ours = vmap(grad(loss(cygrad, m)), in_dims=(None, 0, 0))(params, _c(x), _c(y))
    theirs = tf.vmap(tf.grad(loss(torch, tm)), in_dims=(None, 0, 0))(tparams, _t(x), _t(y))
    close(_np(ours), _np(theirs))
    # the module's own parameters are back
    assert all(p is q for p, q in zip(m.parameters(), m.parameters()))
    assert not any(p is v for p in m.parameters() for v in params.values())


def test_functional_call_errors_and_ties():
    m = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        functional_call(m, {"weight": cygrad.ones(2, 2), "foo": cygrad.ones(1)},
                        (cygrad.ones(2),), strict=True)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(m, ({"weight": cygrad.ones(2, 2)}, {"weight": cygrad.ones(2, 2)}),
                        (cygrad.ones(2),))
    tied = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
    tied[1].weight = tied[0].weight
    out = functional_call(tied, {"0.weight": cygrad.eye(2) * 2}, (cygrad.ones(2),))
    assert out.tolist() == [4.0, 4.0]


def test_ensemble_with_stack_module_state(rng):
    models = [_mlp(cygrad) for _ in range(3)]
    for i, mm in enumerate(models):
        cygrad.manual_seed(i)
        for p in mm.parameters():
            p.data.normal_()
    params, buffers = stack_module_state(models)
    assert params["0.weight"].shape == (3, 8, 3) and params["0.weight"].requires_grad
    x = cygrad.randn(5, 3)
    out = vmap(lambda p, b, a: functional_call(models[0], (p, b), (a,)),
               in_dims=(0, 0, None))(params, buffers, x)
    close(_np(out), np.stack([_np(mm(x)) for mm in models]), tol=1e-6)
    with pytest.raises(RuntimeError, match="at least one model"):
        stack_module_state([])
    models[1].eval()
    with pytest.raises(RuntimeError, match="training/eval"):
        stack_module_state(models)


def test_batch_norm_helpers():
    net = replace_all_batch_norm_modules_(nn.Sequential(nn.BatchNorm1d(3)))
    assert net[0].running_mean is None and not net[0].track_running_stats
    x = cygrad.randn(4, 5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # batch_norm has a rule
        out = vmap(net)(x)
    close(_np(out), np.stack([_np(net(x[i])) for i in range(4)]), tol=1e-6)
    f = lambda v: v.add_(1)                                            # noqa: E731
    assert functionalize(f) is f
    with pytest.raises(RuntimeError):
        functionalize(f, remove="x")
    seen = []
    vmap(lambda r: seen.append(tuple(debug_unwrap(r).shape)) or r)(cygrad.zeros(4, 2))
    assert seen == [(4, 2)]


def test_jvp_through_a_function_without_forward_formula():
    class Cube(cygrad.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return v * v * v

        @staticmethod
        def backward(ctx, g):
            (v,) = ctx.saved_tensors
            return 3 * v * v * g
    x = _c([1.0, 2.0])
    out, t = jvp(Cube.apply, (x,), (_c([1.0, 1.0]),))
    close(_np(t), np.array([3.0, 12.0]))
    close(_np(jacfwd(Cube.apply)(x)), np.diag([3.0, 12.0]))
