"""cuda_src/matmul.cu's register-blocked product on the emulated GPU at sizes that
span several 64 x 64 block tiles and several k steps, with edges that are not
multiples of the tile, transposed and sliced operands and broadcast batches,
against NumPy."""
import os
import sys

import numpy as np
import pytest

import cygrad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype is cygrad.float32 else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
@pytest.mark.parametrize("m,k,n", [(130, 70, 150), (64, 16, 64), (1, 300, 65), (129, 1, 3)])
def test_product_across_block_tiles(dtype, m, k, n):
    rng = np.random.default_rng(m * 7 + n)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    ta, tb = (cygrad.tensor(x, dtype=dtype, device="cuda") for x in (a, b))
    np.testing.assert_allclose((ta @ tb).cpu().numpy(), a @ b, **_tol(dtype))


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
def test_transposed_sliced_and_batched_operands(dtype):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 90, 100))          # used as a[:, :, ::2].transpose(1, 2)
    b = rng.standard_normal((77, 45))              # used transposed, one batch for all
    ta = cygrad.tensor(a, dtype=dtype, device="cuda")[:, :, ::2].transpose(1, 2)   # (3, 50, 90)
    tb = cygrad.tensor(b, dtype=dtype, device="cuda")[:, :].t()[:, :77]            # (45, 77)
    ref_a = a[:, :, ::2].transpose(0, 2, 1)
    with pytest.raises(RuntimeError):
        ta @ tb                                       # (3, 50, 90) @ (45, 77): k differs
    tb2 = cygrad.tensor(rng.standard_normal((90, 70)), dtype=dtype, device="cuda")[:, ::1]
    np.testing.assert_allclose((ta @ tb2).cpu().numpy(), ref_a @ tb2.cpu().numpy(),
                               **_tol(dtype))
    np.testing.assert_allclose((tb.t() @ tb).cpu().numpy(), b @ b.T, **_tol(dtype))
