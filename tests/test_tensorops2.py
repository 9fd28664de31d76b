"""The ops of ``cygrad/ops/tensorops/{scatters,positions}.py``, ``gradient`` with
coordinates and ``histogramdd`` against PyTorch, where the op table's samples do not
reach (tuples of tensors, in-place fills, views, spacing given as tensors)."""
import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="these ops are checked against PyTorch")
RNG = np.random.default_rng(2)


def c(a):
    return cygrad.from_numpy(np.array(a).copy())


def t(a):
    return torch.from_numpy(np.array(a).copy())


def test_nonzero_static_and_unravel_index():
    x = RNG.integers(0, 2, (3, 4))
    for size, fill in ((2, -1), (9, 7), (0, 0)):
        np.testing.assert_array_equal(cygrad.nonzero_static(c(x), size=size, fill_value=fill),
                                      torch.nonzero_static(t(x), size=size, fill_value=fill))
    idx = np.array([[0, 5, -1], [7, 23, 11]])
    for shape in ((2, 3), (4, 3, 2), 24):
        for a, b in zip(cygrad.unravel_index(c(idx), shape), torch.unravel_index(t(idx), shape)):
            assert a.dtype == cygrad.int64 and tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(TypeError):
        cygrad.unravel_index(c([1.0]), (2,))


def test_fill_diagonal_and_index_put_():
    for shape, wrap in (((3, 5), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False)):
        a, b = cygrad.zeros(*shape), torch.zeros(*shape)
        assert a.fill_diagonal_(2.5, wrap=wrap) is a
        np.testing.assert_array_equal(a.numpy(), b.fill_diagonal_(2.5, wrap=wrap).numpy())
    for bad in ((3,), (3, 4, 3)):
        with pytest.raises(RuntimeError):
            cygrad.zeros(*bad).fill_diagonal_(1.0)
    x = cygrad.ones(3, 3, dtype=cygrad.float64, requires_grad=True)
    y = x * 2
    y.fill_diagonal_(0.0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * (1 - np.eye(3)))
    a, b = cygrad.zeros(3, 2), torch.zeros(3, 2)
    cygrad.index_put_(a, (c([0, 2, 0]),), c(np.float32([1.0, 2.0])), accumulate=True)
    torch.index_put_(b, (t([0, 2, 0]),), t(np.float32([1.0, 2.0])), accumulate=True)
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_unfold_is_a_view_with_summed_gradients():
    x = cygrad.arange(12.0).reshape(3, 4)
    u = x.unfold(1, 3, 1)
    u[0, 0, 1] = 100.0
    assert x[0, 1].item() == 100.0
    w = RNG.standard_normal((3, 4))
    xs = [c(w).requires_grad_(), t(w).requires_grad_()]
    g = RNG.standard_normal((4, 2, 2))
    for lib, a in ((cygrad, xs[0]), (torch, xs[1])):
        (a.t().unfold(1, 2, 1) * (c(g) if lib is cygrad else t(g))).sum().backward()
    np.testing.assert_allclose(xs[0].grad.numpy(), xs[1].grad.numpy())
    flipped = c(w).flip(1).unfold(1, 2, 2)
    np.testing.assert_array_equal(flipped.numpy(), t(w).flip(1).unfold(1, 2, 2).numpy())
    for args in ((1, 5, 1), (1, 2, 0)):
        with pytest.raises(RuntimeError):
            c(w).unfold(*args)


def test_masked_scatter_inplace_and_errors():
    mask = RNG.random(4) > 0.4
    src = RNG.standard_normal(8)
    a, b = c(np.zeros((2, 4))), t(np.zeros((2, 4)))
    a.masked_scatter_(c(mask), c(src))
    b.masked_scatter_(t(mask), t(src))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(RuntimeError):
        cygrad.zeros(3).masked_scatter(c([True, True, True]), cygrad.zeros(2))
    with pytest.raises(RuntimeError):
        cygrad.zeros(3).masked_scatter(c([1, 0, 1]), cygrad.zeros(3))


def test_index_reduce_errors_match_torch():
    x, src = np.zeros((3, 2)), np.ones((2, 2))
    for idx, reduce, err in (([0, 1], "sum", RuntimeError), ([[0, 1]], "prod", IndexError),
                             ([0], "prod", RuntimeError), ([0, 5], "amax", IndexError),
                             ([-1, 0], "prod", IndexError), ([0, -3], "mean", IndexError)):
        for lib, f in ((cygrad, c), (torch, t)):
            with pytest.raises(err):
                lib.index_reduce(f(x), 0, f(np.array(idx)), f(src), reduce)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_with_coordinates(edge_order):
    y = RNG.standard_normal((5, 4))
    xs = [np.sort(RNG.random(5)) * 4, np.cumsum(RNG.random(4) + 0.1)]
    ours = cygrad.gradient(c(y), spacing=[c(v) for v in xs], edge_order=edge_order)
    ref = torch.gradient(t(y), spacing=[t(v) for v in xs], edge_order=edge_order)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    ints = cygrad.gradient(c(np.array([1, 4, 9, 16])), spacing=2)[0]
    assert ints.dtype == cygrad.float32
    np.testing.assert_allclose(ints.numpy(), torch.gradient(t([1, 4, 9, 16]), spacing=2)[0])
    with pytest.raises(RuntimeError):
        cygrad.gradient(c([1.0, 2.0]), edge_order=2)
    with pytest.raises(RuntimeError):
        cygrad.gradient(c(y), spacing=[1.0, 2.0, 3.0])


def test_histogramdd():
    x = RNG.standard_normal((2, 15, 3)).astype(np.float32)
    w = RNG.random((2, 15)).astype(np.float32)
    edges = [np.array([-2.0, 0.0, 2.0], np.float32), np.array([-1.0, 1.0], np.float32),
             np.array([-3.0, -1.0, 0.0, 3.0], np.float32)]
    cases = [((3,), {}), (([2, 3, 4],), {"weight": w, "density": True}),
             ((2,), {"range": [0.0, 1.0, -1.0, 1.0, 0.0, 2.0]}), ((edges,), {})]
    for args, kwargs in cases:
        ca = tuple([c(e) for e in a] if isinstance(a, list) and hasattr(a[0], "shape") else a
                   for a in args)
        ta = tuple([t(e) for e in a] if isinstance(a, list) and hasattr(a[0], "shape") else a
                   for a in args)
        ck = {k: (c(v) if k == "weight" else v) for k, v in kwargs.items()}
        tk = {k: (t(v) if k == "weight" else v) for k, v in kwargs.items()}
        ours, ref = cygrad.histogramdd(c(x), *ca, **ck), torch.histogramdd(t(x), *ta, **tk)
        np.testing.assert_allclose(ours.hist.numpy(), ref.hist.numpy(), rtol=1e-6)
        for a, b in zip(ours.bin_edges, ref.bin_edges):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError):
        cygrad.histogramdd(c(x[0, :, 0]), bins=2)
