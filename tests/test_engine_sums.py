"""The backward engine's sums in place (cygrad/_core/engine.pyx, "gradients summed
into their buffer"): a gradient the engine made itself takes the next contribution
in place, and a region view's gradient (``split``, slicing, ``select``,
``diagonal``) is added into its base's buffered gradient instead of being placed
in zeros and summed.

Values are checked against gradients written out with NumPy (the ops here are
linear, so the gradient is the weights), and against the engine with the shortcut
off (``engine._set_sum_in_place(False)``), bitwise: ``a + b`` and ``a += b`` round
alike. The other direction matters as much: a gradient the user, a hook, another
buffer or a view can reach must never be written to, so those cases check that
such tensors keep their values."""
import numpy as np
import pytest

import cygrad
from cygrad._core import engine as E


@pytest.fixture
def counters():
    """Counters' increase over the test: ``counters()`` returns it so far."""
    start = E._sum_counters()
    return lambda: {k: v - start[k] for k, v in E._sum_counters().items()}


@pytest.fixture
def shortcut_off():
    was = E._set_sum_in_place(False)
    yield
    E._set_sum_in_place(was)


def _weights(rng, *shapes):
    return [rng.standard_normal(s) for s in shapes]


def test_split_pieces_add_into_one_gradient(counters):
    rng = np.random.default_rng(0)
    x = cygrad.tensor(rng.standard_normal((4, 9)), requires_grad=True)
    wa, wb, wc = _weights(rng, (4, 3), (4, 3), (4, 3))
    a, b, c = (x * 2).split(3, dim=1)
    loss = (a * cygrad.tensor(wa)).sum() + (b * cygrad.tensor(wb)).sum() + \
        (c * cygrad.tensor(wc)).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.concatenate([wa, wb, wc], axis=1),
                               rtol=1e-15, atol=0)
    assert counters()["regions"] == 2      # the first piece makes the buffer, two add into it


@pytest.mark.parametrize("make", [
    lambda y: [y[0], y[1:3], y[3]],                              # select, slice, select
    lambda y: [y[:, 1], y[:, ::2], y[2:, 1:4]],                  # overlapping regions
    lambda y: [y.diagonal(), y.narrow(1, 2, 2), y[1]],
    lambda y: list(y.chunk(3, dim=1)) + list(y.unbind(0)),
], ids=["select_slice", "overlapping", "diagonal_narrow", "chunk_unbind"])
def test_regions_match_numpy_and_the_engine_without_shortcut(make, counters):
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((4, 6))
    grads = {}
    for on in (True, False):
        was = E._set_sum_in_place(on)
        try:
            x = cygrad.tensor(x0, requires_grad=True)
            pieces = make(x * 3)
            ws = [rng.standard_normal(tuple(p.shape)) for p in pieces] if on else ws
            sum(((p * cygrad.tensor(w)).sum() for p, w in zip(pieces, ws)),
                cygrad.tensor(0.0)).backward()
            grads[on] = x.grad.numpy()
        finally:
            E._set_sum_in_place(was)
    # the reference: each piece's weights placed where the piece reads, times 3
    ref = np.zeros_like(x0)
    idx = np.arange(x0.size).reshape(x0.shape)
    for p, w in zip(make(cygrad.tensor(idx)), ws):
        np.add.at(ref.reshape(-1), p.numpy().reshape(-1), 3 * w.reshape(-1))
    np.testing.assert_allclose(grads[True], ref, rtol=1e-14, atol=1e-14)
    assert np.array_equal(grads[True], grads[False])
    assert counters()["regions"] >= 1


def test_owned_sums_are_written_in_place(counters):
    # h's gradient arrives from three ops; each arrives as a fresh tensor the
    # engine alone holds, so the second and third are added into the first
    rng = np.random.default_rng(2)
    x = cygrad.tensor(rng.standard_normal((5, 7)), requires_grad=True)
    h = x * 1.5
    w = _weights(rng, (5, 7), (5, 7), (5, 7))
    ((h * cygrad.tensor(w[0])).sum() + (h * cygrad.tensor(w[1])).sum()
     + (h * cygrad.tensor(w[2])).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 1.5 * (w[0] + w[1] + w[2]), rtol=1e-14)
    assert counters()["in_place"] == 2


def test_user_gradients_are_never_written(counters):
    x = cygrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 2
    g1, g2 = cygrad.ones(2, 3), cygrad.full((2, 3), 5.0)
    cygrad.autograd.backward([y, y], [g1, g2])
    assert g1.tolist() == [[1.0] * 3] * 2 and g2.tolist() == [[5.0] * 3] * 2
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 12.0))
    # a user's gradient for the base must not take a region's gradient either
    x.grad = None
    y = x * 2
    g = cygrad.ones(2, 3)
    cygrad.autograd.backward([y, y[0]], [g, cygrad.full((3,), 10.0)])
    assert g.tolist() == [[1.0] * 3] * 2
    np.testing.assert_array_equal(x.grad.numpy(), [[22.0] * 3, [2.0] * 3])
    assert counters() == {"in_place": 0, "regions": 0}


def test_gradients_a_hook_or_a_function_keeps_are_never_written():
    kept = []

    class Keep(cygrad.autograd.Function):
        """The identity, whose backward keeps the gradient it returns."""
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            out = g * 1
            kept.append((out, out.tolist()))
            return out

    # h's gradient is the sum of what three Keep nodes return: whichever arrives
    # first is kept by its Function and must not take the others
    x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1
    (Keep.apply(h) * 2 + Keep.apply(h) * 3 + Keep.apply(h) * 4).sum().backward()
    assert len(kept) == 3
    for t, values in kept:
        assert t.tolist() == values
    assert x.grad.tolist() == [9.0, 9.0, 9.0]
    # a tensor hook that keeps the gradient it saw, on an output whose gradient is
    # then summed with another in the engine's buffer for h
    kept.clear()
    x.grad = None
    h = x * 1
    y = h[:2]
    y.register_hook(lambda g: kept.append((g, g.tolist())) or g)
    ((y * 5).sum() + (h * 7).sum()).backward()
    for t, values in kept:
        assert t.tolist() == values
    assert x.grad.tolist() == [12.0, 12.0, 7.0]


def test_views_of_another_gradient_are_never_written():
    # the incoming gradient is reshaped twice (views of one tensor): neither view
    # may take the other's sum in place
    x = cygrad.tensor(np.arange(6.0), requires_grad=True)
    y = x * 1
    z = (y.view(2, 3) + y.view(3, 2).t()).sum()
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(6, 2.0))


def test_create_graph_keeps_the_ops_and_second_order_gradients():
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal((3, 6))
    x = cygrad.tensor(x0, requires_grad=True)
    a, b = (x * x).split(3, dim=1)
    ((a * 2).sum() + (b * 5).sum()).backward(create_graph=True)
    g, x.grad = x.grad, None
    assert g.requires_grad
    w = np.concatenate([np.full((3, 3), 2.0), np.full((3, 3), 5.0)], axis=1)
    np.testing.assert_allclose(g.detach().numpy(), 2 * x0 * w, rtol=1e-14)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * w, rtol=1e-14)


def test_a_non_contiguous_base_takes_the_general_path(counters):
    rng = np.random.default_rng(4)
    x = cygrad.tensor(rng.standard_normal((6, 4)), requires_grad=True)
    base = (x * 1).t()                 # (4, 6), not contiguous
    a, b = base.split(3, dim=1)
    wa, wb = _weights(rng, (4, 3), (4, 3))
    ((a * cygrad.tensor(wa)).sum() + (b * cygrad.tensor(wb)).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.concatenate([wa, wb], axis=1).T, rtol=1e-15)


def test_qkv_split_at_model_size_over_many_steps(shortcut_off):
    # the transformer's pattern at a realistic size (B*T = 512 rows, 3C = 768),
    # 200 steps with the shortcut on, against the engine without it
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal((512, 256)).astype(np.float32)
    w0 = (rng.standard_normal((256, 768)) / 16).astype(np.float32)
    g = cygrad.tensor(rng.standard_normal((512, 256)).astype(np.float32))

    def grad_of_w(on, steps):
        was = E._set_sum_in_place(on)
        try:
            w = cygrad.tensor(w0, requires_grad=True)
            x = cygrad.tensor(x0)
            for _ in range(steps):
                w.grad = None
                q, k, v = (x @ w).split(256, dim=1)
                ((q * g).sum() + (k * k).sum() * 1e-3 + (v * 2).sum()).backward()
            return w.grad.numpy()
        finally:
            E._set_sum_in_place(was)

    before = E._sum_counters()["regions"]
    on = grad_of_w(True, 200)
    assert E._sum_counters()["regions"] - before == 400
    assert np.array_equal(on, grad_of_w(False, 1))
