"""vmap: batching rules against a loop over the samples and against torch.func.vmap.

Each case is written once against a namespace ``ns`` (``cygrad`` or ``torch``), whose
APIs agree; it runs under cygrad's vmap, as a Python loop over the samples in cygrad
(the independent reference), and under torch.func.vmap when PyTorch is installed.
Cases covered by batching rules run with warnings turned into errors, so a case that
silently fell back to the per-sample loop fails.
"""
import warnings

import numpy as np
import pytest

import cygrad
from cygrad.func import vmap

torch = pytest.importorskip("torch", reason="values are compared with torch.func.vmap")


def _arr(rng, shape):
    return rng.standard_normal(shape)


def _to(ns, a):
    if isinstance(a, np.ndarray):
        return cygrad.from_numpy(a.copy()) if ns is cygrad else torch.from_numpy(a.copy())
    return a


def _np(x):
    if isinstance(x, (tuple, list)):
        return [_np(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _F(ns):
    return ns.nn.functional


# name, function of ns -> f, input shapes (batch first along in_dims), in_dims
CASES = [
    ("unary", lambda ns: lambda x: ns.exp(x).sin() * 2, [(5, 3, 4)], 0),
    ("binary_broadcast", lambda ns: lambda x, y: x * y + y, [(5, 3, 4), (5, 4)], 0),
    ("binary_unbatched", lambda ns: lambda x, y: (x - y) / (y.abs() + 1), [(5, 4), (3, 4)],
     (0, None)),
    ("scalar_sample", lambda ns: lambda x: x * 3 + 1, [(6,)], 0),
    ("where_clamp", lambda ns: lambda x: ns.where(x > 0, x, x.clamp(-0.5, 0.5)), [(5, 7)], 0),
    ("sum_mean", lambda ns: lambda x: x.sum(0) + x.mean(-1, keepdim=True) + x.sum(), [(4, 3, 5)],
     0),
    ("reductions", lambda ns: lambda x: ns.stack([x.amax(1), x.std(1), x.var(1),
                                                  x.logsumexp(1), x.prod(1)]), [(4, 3, 5)], 0),
    ("max_dim", lambda ns: lambda x: x.max(1).values + x.min(dim=0).values.sum(), [(4, 3, 3)], 0),
    ("argmax_full", lambda ns: lambda x: x.argmax(), [(4, 3, 5)], 0),
    ("softmax", lambda ns: lambda x: ns.softmax(x, -1) + _F(ns).log_softmax(x, dim=0),
     [(4, 3, 5)], 0),
    ("cumsum_sort", lambda ns: lambda x: x.cumsum(1) + x.sort(-1).values, [(4, 3, 5)], 0),
    ("views", lambda ns: lambda x: x.reshape(-1, 2).t().unsqueeze(0).transpose(1, 2)
     .flatten(), [(3, 4, 3)], 0),
    ("permute_expand", lambda ns: lambda x: x.permute(2, 0, 1).unsqueeze(1)
     .expand(4, 2, 3, 5), [(3, 3, 5, 4)], 0),
    ("squeeze_movedim", lambda ns: lambda x: x.unsqueeze(1).squeeze().movedim(0, -1),
     [(3, 4, 5)], 0),
    ("slicing", lambda ns: lambda x: x[1:, ::2].sum(0) + x[0, 0] + x[..., -1:][:3, 0],
     [(3, 4, 5)], 0),
    ("adv_index", lambda ns: lambda x: x[:, [0, 2]].sum(-1), [(3, 4, 5)], 0),
    ("cat_stack", lambda ns: lambda x, y: ns.cat([x, y], 1) + ns.stack([x, y], -1).sum(-1)
     .repeat(1, 2), [(3, 4, 2), (4, 2)], (0, None)),
    ("split_chunk_unbind", lambda ns: lambda x: x.chunk(2, 1)[0] * x.split(3, 1)[1] +
     x.unbind(0)[2][:3], [(3, 4, 6)], 0),
    ("matmul_mm", lambda ns: lambda a, b: a @ b + ns.mm(a, b), [(3, 4, 5), (3, 5, 2)], 0),
    ("matmul_vec", lambda ns: lambda a, b: ns.matmul(a, b) + b.sum(), [(3, 4, 5), (5,)],
     (0, None)),
    ("matmul_left", lambda ns: lambda a, b: a @ b, [(4,), (3, 4, 2)], (None, 0)),
    ("dot_mv", lambda ns: lambda a, b: ns.dot(a, b) + ns.mv(ns.outer(a, b), a).sum(),
     [(3, 4), (3, 4)], 0),
    ("bmm", lambda ns: lambda a, b: ns.bmm(a, b), [(2, 3, 4, 5), (2, 3, 5, 2)], 0),
    ("einsum", lambda ns: lambda a, b: ns.einsum("ij,jk->ik", a, b), [(3, 4, 5), (5, 2)],
     (0, None)),
    ("linear_batched_x", lambda ns: lambda x, w, b: _F(ns).linear(x, w, b),
     [(6, 4, 3), (5, 3), (5,)], (0, None, None)),
    ("linear_batched_w", lambda ns: lambda x, w, b: _F(ns).linear(x, w, b),
     [(4, 3), (6, 5, 3), (6, 5)], (None, 0, 0)),
    ("activations", lambda ns: lambda x: _F(ns).gelu(x) + _F(ns).silu(x) + _F(ns).relu(x)
     + _F(ns).leaky_relu(x, 0.1) + _F(ns).softplus(x), [(4, 3, 5)], 0),
    ("layer_norm", lambda ns: lambda x, w: _F(ns).layer_norm(x, (5,), w), [(4, 3, 5), (5,)],
     (0, None)),
    ("conv2d", lambda ns: lambda x, w: _F(ns).conv2d(x, w, padding=1), [(3, 2, 2, 6, 6),
                                                                      (4, 2, 3, 3)], (0, None)),
    ("conv2d_unbatched_sample", lambda ns: lambda x, w: _F(ns).conv2d(x, w),
     [(3, 2, 6, 6), (4, 2, 3, 3)], (0, None)),
    ("max_pool2d", lambda ns: lambda x: _F(ns).max_pool2d(x, 2), [(3, 2, 2, 6, 6)], 0),
    ("mse_loss", lambda ns: lambda x, y: _F(ns).mse_loss(x, y), [(5, 3, 4), (5, 3, 4)], 0),
    ("mse_sum", lambda ns: lambda x, y: _F(ns).mse_loss(x, y, reduction="sum"),
     [(5, 3, 4), (3, 4)], (0, None)),
    ("in_dim_1", lambda ns: lambda x: x.sum(0), [(3, 5, 4)], 1),
    ("in_dim_neg", lambda ns: lambda x, y: x * y, [(3, 4, 5), (5, 4)], (-1, 0)),
    ("gather", lambda ns: lambda x: x.gather(1, x.argsort(1)[:, :2]), [(3, 4, 5)], 0),
    ("attention", lambda ns: lambda q, k: _F(ns).scaled_dot_product_attention(q, k, k),
     [(3, 2, 4, 8), (2, 5, 8)], (0, None)),
    ("pad_cosine", lambda ns: lambda x, y: _F(ns).pad(x, (1, 2)).sum(-1) +
     _F(ns).cosine_similarity(x, y, dim=-1), [(3, 4, 5), (5,)], (0, None)),
    ("embedding_tables", lambda ns: lambda w: _F(ns).embedding(ns.tensor([[0, 2], [1, 1]]), w),
     [(3, 4, 5)], 0),
    ("expand_as_plain", lambda ns: lambda x: ns.ones(5).expand_as(x) * x, [(3, 4, 5)], 0),
]


@pytest.mark.parametrize("name,make,shapes,in_dims", CASES, ids=[c[0] for c in CASES])
def test_rules_against_loop_and_torch(name, make, shapes, in_dims, rng):
    arrays = [_arr(rng, s) for s in shapes]
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(arrays)
    args = [_to(cygrad, a) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no per-sample fallback for these
        got = vmap(make(cygrad), in_dims=in_dims)(*args)
    size = next(a.shape[d] for a, d in zip(arrays, dims) if d is not None)
    f = make(cygrad)
    loop = [f(*[a if d is None else a.select(d, i) for a, d in zip(args, dims)])
            for i in range(size)]
    np.testing.assert_allclose(_np(got), np.stack([_np(r) for r in loop]), rtol=1e-10,
                               atol=1e-12)
    want = torch.func.vmap(make(torch), in_dims=in_dims)(*[_to(torch, a) for a in arrays])
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-10, atol=1e-12)


def test_cross_entropy_rule(rng):
    logits = rng.standard_normal((4, 6, 5))
    target = np.array([1, 0, 4, 2, 2, 3])
    for kw in ({}, {"reduction": "sum"}, {"reduction": "none"}, {"ignore_index": 2}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = vmap(lambda x: cygrad.nn.functional.cross_entropy(
                x, cygrad.tensor(target), **kw))(cygrad.from_numpy(logits))
        want = torch.func.vmap(lambda x: torch.nn.functional.cross_entropy(
            x, torch.tensor(target), **kw))(torch.from_numpy(logits))
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-10)


def test_pytrees_in_and_out(rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((3, 4))

    def f(d, pair):
        return {"s": d["x"] + pair[0], "p": (d["x"] * pair[1], pair[0])}

    def run(ns, vm):
        return vm(f, in_dims=({"x": 0}, (None, 1)), out_dims={"s": 1, "p": (0, None)})(
            {"x": _to(ns, a)}, (_to(ns, b[:, 0]), _to(ns, b)))
    got, want = run(cygrad, vmap), run(torch, torch.func.vmap)
    np.testing.assert_allclose(_np(got["s"]), _np(want["s"]))
    np.testing.assert_allclose(_np(got["p"][0]), _np(want["p"][0]))
    np.testing.assert_allclose(_np(got["p"][1]), _np(want["p"][1]))
    assert tuple(got["s"].shape) == (3, 4)


def test_out_dims_and_unbatched_output(rng):
    x = rng.standard_normal((4, 3))
    got = vmap(lambda r: (r * 2, cygrad.ones(2)), out_dims=(1, 0))(cygrad.from_numpy(x))
    np.testing.assert_allclose(_np(got[0]), (x * 2).T)
    np.testing.assert_allclose(_np(got[1]), np.ones((4, 2)))   # expanded, as PyTorch does


def test_nested_vmap(rng):
    x, y = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 5))
    f = lambda a, b: (a * b).sum(-1) + a.mean()                       # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(vmap(f, in_dims=(0, 0)), in_dims=(0, None))(cygrad.from_numpy(x),
                                                               cygrad.from_numpy(y))
    want = torch.func.vmap(torch.func.vmap(f, in_dims=(0, 0)), in_dims=(0, None))(
        torch.from_numpy(x), torch.from_numpy(y))
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12)
    # the inner map over a different dim of the same tensor
    got2 = vmap(vmap(lambda r: r.sum(), in_dims=1))(cygrad.from_numpy(x))
    np.testing.assert_allclose(_np(got2), x.sum(1), rtol=1e-12)


def test_chunk_size_gives_the_same_result(rng):
    x = cygrad.from_numpy(rng.standard_normal((7, 3)))
    full = vmap(lambda r: r.exp().sum())(x)
    chunked = vmap(lambda r: r.exp().sum(), chunk_size=3)(x)
    np.testing.assert_allclose(_np(chunked), _np(full))
    with pytest.raises(ValueError, match="chunk_size"):
        vmap(cygrad.sin, chunk_size=0)


def test_fallback_warns_and_is_correct(rng):
    x = rng.standard_normal((3, 4))
    with pytest.warns(UserWarning, match="There is a performance drop because we have not yet "
                                         "implemented the batching rule for"):
        got = vmap(lambda r: cygrad.cdist(r.reshape(2, 2), r.reshape(2, 2)))(cygrad.from_numpy(x))
    want = np.stack([_np(cygrad.cdist(cygrad.from_numpy(r.reshape(2, 2)),
                                      cygrad.from_numpy(r.reshape(2, 2)))) for r in x])
    np.testing.assert_allclose(_np(got), want)


def test_namespaces_are_restored():
    exp, conv = cygrad.exp, cygrad.nn.Conv2d._conv
    mul = cygrad.Tensor.__dict__.get("mul")
    vmap(lambda r: r.exp())(cygrad.ones(2, 2))
    assert cygrad.exp is exp and cygrad.nn.Conv2d._conv is conv
    assert cygrad.Tensor.__dict__.get("mul") is mul


def test_inplace(rng):
    x = rng.standard_normal((3, 4))

    def f(r):
        y = r.clone()
        y.mul_(2).add_(cygrad.ones(4))
        y[0] = 5.0
        return y
    got = vmap(f)(cygrad.from_numpy(x))
    want = x * 2 + 1
    want[:, 0] = 5.0
    np.testing.assert_allclose(_np(got), want)
    with pytest.raises(RuntimeError, match="inplace arithmetic"):
        vmap(lambda r: cygrad.zeros(4).add_(r))(cygrad.from_numpy(x))


def test_randomness_modes():
    x = cygrad.zeros(6, 200)
    diff = vmap(lambda r: r + cygrad.rand(200), randomness="different")(x)
    same = vmap(lambda r: r + cygrad.rand(200), randomness="same")(x)
    assert not bool((diff[0] == diff[1]).all())
    assert bool((same == same[0]).all())
    drop_same = vmap(lambda r: cygrad.nn.functional.dropout(r + 1), randomness="same")(x)
    assert bool((drop_same == drop_same[0]).all()) and bool((drop_same == 0).any())
    drop_diff = vmap(lambda r: cygrad.nn.functional.dropout(r + 1), randomness="different")(x)
    assert not bool((drop_diff == drop_diff[0]).all())
    # dropout that is off needs no randomness
    vmap(lambda r: cygrad.nn.functional.dropout(r, training=False))(x)


def _errors(ns, vm):
    x = ns.ones(3, 4)
    return [
        lambda: vm(ns.sin, in_dims=2)(x),
        lambda: vm(ns.add)(x, ns.ones(2, 4)),
        lambda: vm(ns.add, in_dims=(0,))(x, x),
        lambda: vm(ns.sin, in_dims=None)(x),
        lambda: vm(lambda a, b: a, in_dims=(0, 0))(x, 3),
        lambda: vm(lambda a: ns.rand(2) + a)(x),
        lambda: vm(lambda a: a.item())(x),
        lambda: vm(lambda a: 1 if a.sum() > 0 else 0)(x),
        lambda: vm(ns.sin, out_dims=(0, 1))(x),
        lambda: vm(ns.sin, out_dims=3)(x),
        lambda: vm(lambda a: a, randomness="x")(x),
        lambda: vm(ns.sin)(),
        lambda: vm(lambda a: (a, 3))(x),
        lambda: vm(lambda a: a, out_dims=None)(x),
    ]


@pytest.mark.parametrize("i", range(14))
def test_error_types_match_torch(i):
    with pytest.raises(Exception) as ours:
        _errors(cygrad, vmap)[i]()
    with pytest.raises(Exception) as theirs:
        _errors(torch, torch.func.vmap)[i]()
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)


def test_vmap_is_torch_vmap_name():
    assert cygrad.vmap is vmap


def test_under_the_profiler():
    """Ops the profiler swapped are still found (through ``__wrapped__``) and restored."""
    from cygrad.profiler import profile
    x = cygrad.ones(3, 2)
    sin = cygrad.sin
    with profile() as prof:
        got = vmap(cygrad.sin)(x)
        cygrad.exp(x)
        inside = cygrad.exp
    assert inside is not cygrad.exp and cygrad.sin is sin      # the profiler's wrapper, then back
    np.testing.assert_allclose(_np(got), np.sin(np.ones((3, 2))))
    assert "exp" in {e.name for e in prof.events()}


@pytest.mark.parametrize("batch_first", [False, True])
def test_attention_layers_without_fallback(batch_first):
    cygrad.manual_seed(0)
    mha = cygrad.nn.MultiheadAttention(8, 2, batch_first=batch_first)
    layer = cygrad.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first)
    for x in (cygrad.randn(3, 5, 4, 8), cygrad.randn(3, 5, 8)):     # batched and 2-D samples
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out, w = vmap(lambda s: mha(s, s, s))(x)
            enc = vmap(layer)(x)
        ref = [mha(x[i], x[i], x[i]) for i in range(3)]
        np.testing.assert_allclose(_np(out), np.stack([_np(r[0]) for r in ref]), atol=1e-6)
        np.testing.assert_allclose(_np(w), np.stack([_np(r[1]) for r in ref]), atol=1e-6)
        np.testing.assert_allclose(_np(enc), np.stack([_np(layer(x[i])) for i in range(3)]),
                                   atol=1e-5)


def test_threads_share_the_swap():
    """vmap in several threads at once: each thread's levels are its own; the swap is
    undone when the last one leaves."""
    import threading
    x = cygrad.randn(50, 8)
    want = _np((x.exp() * x).sum(1))
    errors = []

    def work():
        try:
            for _ in range(10):
                got = vmap(lambda r: (r.exp() * r).sum())(x)
                np.testing.assert_allclose(_np(got), want, rtol=1e-6)
                cygrad.exp(x)
        except Exception as e:          # noqa: BLE001  (reported below)
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert cygrad.exp.__module__ == "cygrad.ops.elementwise"


def test_an_op_bound_before_vmap_refuses_batched_tensors():
    from cygrad import exp as bound_exp
    with pytest.raises(TypeError, match="must be Tensor, not BatchedTensor"):
        vmap(lambda r: bound_exp(r))(cygrad.ones(2, 2))
