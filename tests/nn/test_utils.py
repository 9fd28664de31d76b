"""nn.utils: gradient clipping against norms computed with NumPy, and the
parameters <-> vector conversions."""
import math
import warnings

import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad.nn.utils import (clip_grad_norm_, clip_grad_value_, get_total_norm,
                             parameters_to_vector, vector_to_parameters)


def _params_with_grads(rng, shapes, scale=1.0, dtype=np.float64):
    params, grads = [], []
    for shape in shapes:
        p = nn.Parameter(cygrad.from_numpy(rng.standard_normal(shape).astype(dtype)))
        g = (rng.standard_normal(shape) * scale).astype(dtype)
        p.grad = cygrad.from_numpy(g.copy())
        params.append(p)
        grads.append(g)
    return params, grads


def _np_total_norm(grads, p):
    flat = np.concatenate([g.ravel() for g in grads])
    if p == math.inf:
        return np.abs(flat).max()
    return (np.abs(flat) ** p).sum() ** (1 / p)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, 0.5, math.inf, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_matches_numpy(rng, norm_type, max_norm):
    params, grads = _params_with_grads(rng, [(3, 4), (5,), (2, 2, 2)])
    p = float(norm_type)
    expected = _np_total_norm(grads, p)
    total = clip_grad_norm_(params, max_norm, norm_type=norm_type)
    assert total.dim() == 0
    np.testing.assert_allclose(total.item(), expected, rtol=1e-12)
    coef = min(max_norm / (expected + 1e-6), 1.0)
    for param, g in zip(params, grads):
        np.testing.assert_allclose(param.grad.numpy(), g * coef, rtol=1e-12)
    if max_norm < expected:
        after = _np_total_norm([q.grad.numpy() for q in params], p)
        assert after == pytest.approx(max_norm, rel=1e-5)


def test_clip_grad_norm_skips_params_without_grad_and_accepts_one_tensor(rng):
    params, grads = _params_with_grads(rng, [(4,), (3,)])
    params.append(nn.Parameter(cygrad.ones(2)))                  # no .grad
    total = clip_grad_norm_(iter(params), 1.0)
    np.testing.assert_allclose(total.item(), _np_total_norm(grads, 2.0), rtol=1e-12)
    single, g = _params_with_grads(rng, [(6,)], scale=10.0)
    total = clip_grad_norm_(single[0], 2.0)
    np.testing.assert_allclose(total.item(), np.linalg.norm(g[0]), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(single[0].grad.numpy()), 2.0, rtol=1e-5)


def test_clip_grad_norm_empty():
    with pytest.warns(UserWarning, match="empty generator"):
        total = clip_grad_norm_((p for p in []), 1.0)
    assert total.item() == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert clip_grad_norm_([nn.Parameter(cygrad.ones(1))], 1.0).item() == 0.0


def test_clip_grad_norm_nonfinite(rng):
    params, _ = _params_with_grads(rng, [(3,)])
    params[0].grad[1] = float("nan")
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    params[0].grad[1] = float("inf")
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    total = clip_grad_norm_(params, 1.0)                     # allowed by default
    assert math.isinf(total.item())


@pytest.mark.parametrize("foreach", [None, False, True])
def test_foreach_flag_is_accepted(rng, foreach):
    params, grads = _params_with_grads(rng, [(3,), (2, 2)], scale=5.0)
    total = clip_grad_norm_(params, 1.0, foreach=foreach)
    np.testing.assert_allclose(total.item(), _np_total_norm(grads, 2.0), rtol=1e-12)
    clip_grad_value_(params, 0.1, foreach=foreach)
    assert max(float(p.grad.abs().max()) for p in params) <= 0.1


def test_get_total_norm_float32(rng):
    params, grads = _params_with_grads(rng, [(100,), (7, 3)], dtype=np.float32)
    total = get_total_norm([p.grad for p in params])
    assert total.dtype is cygrad.float32
    np.testing.assert_allclose(total.item(), _np_total_norm(grads, 2.0), rtol=1e-5)


def test_clip_grad_value(rng):
    params, grads = _params_with_grads(rng, [(4, 5), (6,)], scale=3.0)
    assert clip_grad_value_(params, 1.5) is None
    for p, g in zip(params, grads):
        np.testing.assert_array_equal(p.grad.numpy(), np.clip(g, -1.5, 1.5))


def test_parameters_to_vector_and_back(rng):
    lin = nn.Linear(3, 2).double()
    vec = parameters_to_vector(lin.parameters())
    expected = np.concatenate([lin.weight.detach().numpy().ravel(), lin.bias.detach().numpy()])
    np.testing.assert_array_equal(vec.detach().numpy(), expected)
    new = cygrad.from_numpy(rng.standard_normal(8))
    weight = lin.weight
    vector_to_parameters(new, lin.parameters())
    assert lin.weight is weight                                  # the same Parameter
    np.testing.assert_array_equal(lin.weight.detach().numpy(), new.numpy()[:6].reshape(2, 3))
    np.testing.assert_array_equal(lin.bias.detach().numpy(), new.numpy()[6:])
    new[0] = 100.0                                               # the parameters view vec
    assert lin.weight[0, 0].item() == 100.0
    with pytest.raises(TypeError, match="expected cygrad.Tensor"):
        vector_to_parameters(new.numpy(), lin.parameters())


def test_parameters_to_vector_is_differentiable():
    lin = nn.Linear(2, 2)
    (parameters_to_vector(lin.parameters()) * 3).sum().backward()
    np.testing.assert_array_equal(lin.weight.grad.numpy(), np.full((2, 2), 3.0))
