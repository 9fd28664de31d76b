"""F.fractional_max_pool2d/3d and nn.FractionalMaxPool2d/3d against PyTorch: values,
indices and input gradients for given _random_samples (float32 and float64, batched
and unbatched, output_size and output_ratio); the same seed gives PyTorch's windows;
gradcheck; errors."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close

torch = pytest.importorskip("torch", reason="PyTorch is the reference")

CASES = [  # (k, input shape, kernel, kwargs)
    (2, (2, 3, 9, 7), (2, 3), {"output_size": (4, 3)}),
    (2, (3, 8, 8), 2, {"output_size": 5}),
    (2, (1, 2, 10, 9), 3, {"output_ratio": (0.5, 0.6)}),
    (3, (1, 2, 6, 7, 5), (2, 2, 3), {"output_size": (3, 4, 2)}),
    (3, (2, 5, 6, 4), 2, {"output_ratio": (0.5, 0.5, 0.5)}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_torch(rng, case, dtype):
    k, shape, kernel, kwargs = CASES[case]
    x = rng.standard_normal(shape).astype(dtype)
    planes = (1 if len(shape) == k + 1 else shape[0], shape[-k - 1])
    u = rng.uniform(0, 1, planes + (k,)).astype(dtype)
    name = f"fractional_max_pool{k}d"
    xc, xt = cygrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    vc, ic = getattr(F, name)(xc, kernel, return_indices=True, _random_samples=cygrad.tensor(u),
                              **kwargs)
    vt, it = getattr(torch.nn.functional, name)(xt, kernel, return_indices=True,
                                                _random_samples=torch.tensor(u), **kwargs)
    close(vc, vt, atol=0)
    assert ic.tolist() == it.tolist()
    g = rng.standard_normal(tuple(vt.shape)).astype(dtype)
    vc.backward(cygrad.tensor(g))
    vt.backward(torch.tensor(g))
    close(xc.grad, xt.grad, atol=1e-6)


def test_seeded_draws_and_modules_match_torch(rng):
    x = rng.standard_normal((2, 3, 10, 10)).astype(np.float32)
    cygrad.manual_seed(3)
    torch.manual_seed(3)
    close(nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(cygrad.tensor(x)),
          torch.nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))(torch.tensor(x)), atol=0)
    x3 = rng.standard_normal((1, 2, 5, 6, 7)).astype(np.float32)
    vc, ic = nn.FractionalMaxPool3d(2, output_size=3, return_indices=True)(cygrad.tensor(x3))
    vt, it = torch.nn.FractionalMaxPool3d(2, output_size=3, return_indices=True)(torch.tensor(x3))
    close(vc, vt, atol=0)
    assert ic.tolist() == it.tolist()


def test_gradcheck(rng):
    x = cygrad.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    u = cygrad.tensor(rng.uniform(0, 1, (1, 2, 2)))

    def fn(x):
        return F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u)
    assert gradcheck(fn, (x,), check_forward_ad=True)
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("call", [
    lambda m, F: F.fractional_max_pool2d(m.zeros(1, 1, 5, 5), 2),
    lambda m, F: F.fractional_max_pool2d(m.zeros(1, 1, 5, 5), 3, output_size=4),
    lambda m, F: F.fractional_max_pool2d(m.zeros(5, 5), 2, output_size=2),
    lambda m, F: F.fractional_max_pool3d(m.zeros(1, 1, 4, 4), 2, output_size=2),
    lambda m, F: m.nn.FractionalMaxPool2d(2),
    lambda m, F: m.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda m, F: m.nn.FractionalMaxPool2d(2, output_ratio=1.5),
], ids=["no_size", "too_large", "rank_2d", "rank_3d", "module_no_size", "module_both",
        "module_ratio"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as et:
        call(torch, torch.nn.functional)
    with pytest.raises(et.type):
        call(cygrad, F)
