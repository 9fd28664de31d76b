"""Linear, Bilinear, Identity, Flatten, Unflatten and F.linear/F.bilinear: values
against NumPy, gradients with gradcheck (float64), initial value ranges."""
import math

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck


def _leaf(rng, *shape):
    return cygrad.from_numpy(rng.standard_normal(shape)).requires_grad_()


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_forward_matches_numpy(rng, shape, bias):
    lin = nn.Linear(3, 4, bias=bias).double()
    x = rng.standard_normal(shape)
    expected = x @ lin.weight.detach().numpy().T
    if bias:
        expected = expected + lin.bias.detach().numpy()
    out = lin(cygrad.from_numpy(x))
    assert tuple(out.shape) == shape[:-1] + (4,)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)


def test_linear_gradcheck(rng):
    x, w, b = _leaf(rng, 4, 3), _leaf(rng, 2, 3), _leaf(rng, 2)
    assert gradcheck(F.linear, (x, w, b))
    assert gradcheck(F.linear, (_leaf(rng, 2, 2, 3), w, b))
    assert gradcheck(lambda x, w: F.linear(x, w), (x, w))


def test_linear_module_gradients(rng):
    lin = nn.Linear(3, 2).double()
    x = rng.standard_normal((5, 3))
    g = rng.standard_normal((5, 2))
    lin(cygrad.from_numpy(x)).backward(cygrad.from_numpy(g))
    np.testing.assert_allclose(lin.weight.grad.numpy(), g.T @ x)
    np.testing.assert_allclose(lin.bias.grad.numpy(), g.sum(0))


def test_linear_shape_error_matches_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as ours:
        nn.Linear(4, 5)(cygrad.ones(2, 3))
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.Linear(4, 5)(torch.ones(2, 3))
    assert str(ours.value) == str(theirs.value)


def test_bilinear_forward_matches_numpy(rng):
    m = nn.Bilinear(3, 4, 2).double()
    x1, x2 = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    W, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    expected = np.einsum("ni,oij,nj->no", x1, W, x2) + b
    out = m(cygrad.from_numpy(x1), cygrad.from_numpy(x2))
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    unbatched = m(cygrad.from_numpy(x1[0]), cygrad.from_numpy(x2[0]))
    np.testing.assert_allclose(unbatched.detach().numpy(), expected[0], rtol=1e-12)


def test_bilinear_gradcheck(rng):
    args = (_leaf(rng, 3, 2), _leaf(rng, 3, 4), _leaf(rng, 5, 2, 4), _leaf(rng, 5))
    assert gradcheck(F.bilinear, args)
    assert gradcheck(lambda a, b, w: F.bilinear(a, b, w), args[:3])


def _bilinear_errors(L):
    W, b = L.ones(4, 2, 3), L.ones(4)
    cases = [((5, 2), (5, 3, 1), b), ((5, 2), (6, 3), b), ((5, 3), (5, 3), b),
             ((5, 2), (5, 2), b), ((5, 2), (5, 3), L.ones(5))]
    out = []
    for s1, s2, bias in cases:
        with pytest.raises(RuntimeError) as e:
            L.nn.functional.bilinear(L.ones(*s1), L.ones(*s2), W, bias)
        out.append(str(e.value))
    return out


def test_bilinear_errors_match_torch():
    torch = pytest.importorskip("torch")
    assert _bilinear_errors(cygrad) == _bilinear_errors(torch)


def test_default_init_ranges():
    cygrad.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    for p in (lin.weight, lin.bias):
        v = p.detach().numpy()
        assert v.min() >= -bound and v.max() <= bound
    # U(-bound, bound) has std bound / sqrt(3); 120000 samples pin it to ~0.3%.
    assert abs(lin.weight.detach().numpy().std() / (bound / math.sqrt(3)) - 1) < 0.02
    bil = nn.Bilinear(50, 20, 40)
    bbound = 1 / math.sqrt(50)
    for p in (bil.weight, bil.bias):
        assert float(p.abs().max()) <= bbound
    assert abs(bil.weight.detach().numpy().std() / (bbound / math.sqrt(3)) - 1) < 0.02


def test_factory_kwargs_and_no_bias():
    lin = nn.Linear(2, 3, bias=False, dtype=cygrad.float64)
    assert lin.weight.dtype is cygrad.float64 and lin.bias is None
    assert [n for n, _ in lin.named_parameters()] == ["weight"]
    assert nn.Bilinear(1, 2, 3, bias=False).bias is None


def test_identity_flatten_unflatten(rng):
    x = cygrad.from_numpy(rng.standard_normal((2, 3, 4, 5)))
    assert nn.Identity(1, 2, key=3)(x) is x
    np.testing.assert_array_equal(nn.Flatten()(x).numpy(), x.numpy().reshape(2, 60))
    np.testing.assert_array_equal(nn.Flatten(1, 2)(x).numpy(), x.numpy().reshape(2, 12, 5))
    np.testing.assert_array_equal(nn.Unflatten(2, (2, -1))(x).numpy(),
                                  x.numpy().reshape(2, 3, 2, 2, 5))
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, (2, 2.0))
    with pytest.raises(TypeError, match="unflattened_size must be a tuple of ints"):
        nn.Unflatten(1, 4)


def test_layer_reprs_match_torch():
    torch = pytest.importorskip("torch")

    def reprs(L):
        lnn = L.nn
        return [repr(m) for m in (lnn.Linear(3, 4), lnn.Linear(1, 2, bias=False),
                                  lnn.Bilinear(1, 2, 3), lnn.Identity(), lnn.Flatten(0, 2),
                                  lnn.Unflatten(1, (2, 3)), lnn.Unflatten(-1, [4]))]
    assert reprs(cygrad) == reprs(torch)
