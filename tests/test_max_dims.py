"""Tensors of up to 64 dimensions (NumPy 2's limit) through every fixed-size part of
the core: construction, views, broadcasting, the elementwise iterator, reductions,
basic and advanced indexing, NumPy and DLPack exchange, autograd; and
``RuntimeError`` beyond 64, before any fixed-size array could overflow."""
import numpy as np
import pytest

import cygrad

MAX = 64


def _shape(ndim, big_at=(0, 7, 31, 50, 63), size=2):
    """``ndim`` dims, size ``size`` at the positions ``big_at`` (those below ndim), 1 elsewhere."""
    return tuple(size if d in big_at else 1 for d in range(ndim))


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return cygrad.tensor(a), a


def test_64_dims_construct_and_round_trip_through_numpy():
    t = cygrad.zeros(*[1] * MAX)
    assert t.dim() == MAX and t.shape == (1,) * MAX and t.stride() == (1,) * MAX
    x, a = _pair(_shape(MAX))
    assert x.shape == a.shape and x.stride() == tuple(s // 8 for s in a.strides)
    np.testing.assert_array_equal(x.numpy(), a)
    y = cygrad.from_numpy(a)
    np.testing.assert_array_equal(y.numpy(), a)
    np.testing.assert_array_equal(cygrad.from_dlpack(x).numpy(), a)


def test_views_at_64_dims_match_numpy():
    x, a = _pair(_shape(MAX))
    perm = list(range(MAX))[::-1]
    np.testing.assert_array_equal(x.permute(*perm).numpy(), a.transpose(perm))
    np.testing.assert_array_equal(x.transpose(0, 63).numpy(), a.swapaxes(0, 63))
    np.testing.assert_array_equal(x.squeeze().numpy(), a.squeeze())
    np.testing.assert_array_equal(x.reshape(-1).numpy(), a.reshape(-1))
    np.testing.assert_array_equal(x.reshape(2, 4, 4).view(_shape(MAX)).numpy(), a)
    np.testing.assert_array_equal(x.flip(63).numpy(), np.flip(a, 63))
    np.testing.assert_array_equal(x.narrow(7, 1, 1).numpy(), a[(slice(None),) * 7 + (slice(1, 2),)])
    np.testing.assert_array_equal(x.expand(2, 3, *a.shape[2:]).numpy(),
                                  np.broadcast_to(a, (2, 3) + a.shape[2:]))
    # unsqueeze up to the limit, from 63 dims
    y, b = _pair(_shape(MAX - 1))
    np.testing.assert_array_equal(y.unsqueeze(30).numpy(), np.expand_dims(b, 30))


def test_broadcasting_and_elementwise_at_64_dims():
    x, a = _pair(_shape(MAX))
    y, b = _pair((3, 1) + (1,) * 20 + (2,), seed=1)   # 23 dims, broadcast against 64
    np.testing.assert_allclose((x + y).numpy(), a + b)
    np.testing.assert_allclose((x * y).exp().numpy(), np.exp(a * b))
    # a non-contiguous operand: a reversed permutation
    perm = list(range(MAX))[::-1]
    np.testing.assert_allclose(x.permute(*perm).sin().numpy(), np.sin(a.transpose(perm)))
    z = x.clone()
    z.mul_(2.0).add_(x)
    np.testing.assert_allclose(z.numpy(), 3 * a)
    # (np.broadcast_shapes stops at 32 dimensions: the expected shape is written out)
    assert cygrad.broadcast_shapes(_shape(MAX), (5, 1, 1)) == _shape(MAX)[:61] + (5, 1, 2)


def test_reductions_at_64_dims():
    x, a = _pair(_shape(MAX))
    np.testing.assert_allclose(x.sum().item(), a.sum())
    np.testing.assert_allclose(x.sum(dim=(0, 31, 63)).numpy(), a.sum(axis=(0, 31, 63)))
    np.testing.assert_allclose(x.sum(dim=7, keepdim=True).numpy(), a.sum(axis=7, keepdims=True))
    np.testing.assert_allclose(x.amax(dim=50).numpy(), a.max(axis=50))
    np.testing.assert_allclose(x.mean(dim=-1).numpy(), a.mean(axis=-1))
    np.testing.assert_array_equal(x.argmax(dim=0).numpy(), a.argmax(axis=0))
    np.testing.assert_allclose(x.cumsum(dim=31).numpy(), a.cumsum(axis=31))


def test_indexing_at_64_dims():
    x, a = _pair(_shape(MAX))
    idx = (1,) + (slice(None),) * 30 + (Ellipsis, 0)
    np.testing.assert_array_equal(x[idx].numpy(), a[idx])
    np.testing.assert_array_equal(x[0, ...].numpy(), a[0, ...])
    np.testing.assert_array_equal(x[:, ::-1, 1:].numpy(), a[:, ::-1, 1:])
    # None up to the limit: 32 dims and 32 new axes
    y, b = _pair(_shape(32, big_at=(0, 31)))
    np.testing.assert_array_equal(y[(None,) * 32].numpy(), b[(None,) * 32])
    # advanced indexing: a tensor index, a bool mask, and writes
    i = cygrad.tensor([1, 0, 1])
    np.testing.assert_array_equal(x[i].numpy(), a[[1, 0, 1]])
    np.testing.assert_array_equal(x[x > 0].numpy(), a[a > 0])
    z = x.clone()
    z[z > 0] = 0.0
    c = a.copy()
    c[c > 0] = 0.0
    np.testing.assert_array_equal(z.numpy(), c)
    z[(0,) * 10] = 5.0
    c[(0,) * 10] = 5.0
    np.testing.assert_array_equal(z.numpy(), c)


def test_autograd_at_64_dims():
    x, a = _pair(_shape(MAX))
    x.requires_grad_()
    perm = list(range(MAX))[::-1]
    (x.permute(*perm).exp() * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(a))


def test_realistic_size_64_dim_tensor_uses_the_threaded_loops():
    # 2**20 elements over 20 dims of 2 and 44 of 1: past every kernel family's
    # threshold for threads, with a non-contiguous operand
    shape = tuple(2 if d % 3 == 0 and d < 60 else 1 for d in range(MAX))
    assert np.prod(shape) == 1 << 20
    a = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    x = cygrad.tensor(a)
    perm = list(range(MAX))
    perm[0], perm[57] = perm[57], perm[0]
    xt, at = x.permute(*perm), a.transpose(perm)
    np.testing.assert_allclose(xt.exp().numpy(), np.exp(at), rtol=1e-6)
    np.testing.assert_allclose((xt + x).numpy(), at + a, rtol=1e-6)
    np.testing.assert_allclose(xt.sum(dim=(0, 3)).numpy(), at.sum(axis=(0, 3)),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(x.sum().item(), a.astype(np.float64).sum(), rtol=1e-4)
    np.testing.assert_array_equal(xt.contiguous().numpy(), np.ascontiguousarray(at))


@pytest.mark.parametrize("make", [
    lambda: cygrad.zeros(*[1] * (MAX + 1)),
    lambda: cygrad.empty([1] * 100),
    lambda: cygrad.ones(*[1] * MAX).unsqueeze(0),
    lambda: cygrad.ones(*[1] * MAX)[None],
    lambda: cygrad.ones(*[1] * MAX)[(Ellipsis, None)],
    lambda: cygrad.ones(*[1] * 40)[(None,) * 25],
    lambda: cygrad.ones(2).reshape([1] * (MAX + 1) + [2]),
    lambda: cygrad.ones(2).view([1] * (MAX + 1) + [2]),
    lambda: cygrad.ones(2).expand([1] * MAX + [2]),
    lambda: cygrad.ones(2) + cygrad.ones(*[1] * (MAX + 1)),
])
def test_more_than_64_dims_raise_runtime_error(make):
    with pytest.raises(RuntimeError, match="at most 64 dimensions"):
        make()


def test_a_tensor_changing_between_few_and_many_dims_keeps_its_geometry():
    # up to 8 dims the sizes live in the object, beyond in a block of its own: every
    # way a tensor's dims are set in place crosses that line both ways here
    many = _shape(20, big_at=(0, 19))
    t = cygrad.zeros(4)
    t.resize_(*many)
    assert t.shape == many and t.stride() == tuple(s // 8 for s in np.zeros(many).strides)
    t.resize_(2, 2)
    assert t.shape == (2, 2) and t.stride() == (2, 1)
    t.resize_(*many)
    t.fill_(3.0)
    assert t.sum().item() == 12.0
    u = cygrad.zeros(3)
    x, a = _pair(many)
    u.data = x
    np.testing.assert_array_equal(u.numpy(), a)
    u.data = cygrad.ones(2)
    assert u.shape == (2,) and u.tolist() == [1.0, 1.0]
    out = cygrad.empty(1, dtype=cygrad.float64)
    with pytest.warns(UserWarning, match="was resized"):   # as PyTorch warns
        cygrad.add(x, 1.0, out=out)         # an out= of the wrong shape is resized
    np.testing.assert_array_equal(out.numpy(), a + 1.0)
    p = cygrad.nn.Parameter(x.clone())
    assert p.shape == many and isinstance(p, cygrad.nn.Parameter)
    import pickle
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(x)).numpy(), a)
