"""nan_to_num of a complex tensor replaces NaN and infinities in each part, as
PyTorch does (it returned complex input unchanged), on the CPU and the emulated GPU."""
import numpy as np
import pytest

import cygrad

VALUES = [complex("nan"), 1 + 2j, complex(1, float("inf")), complex(float("-inf"), float("nan")),
          complex(float("inf"), -float("inf")), -0.0 + 0j]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("kwargs", [{}, {"nan": 2.5, "posinf": 7.0, "neginf": -9.0}])
def test_each_part_replaced_as_numpy(dtype, kwargs):
    a = np.array(VALUES, dtype=dtype)
    got = cygrad.nan_to_num(cygrad.tensor(a)[::-1], **kwargs)      # a strided input too
    want = np.nan_to_num(a[::-1], **kwargs)
    assert got.dtype.name == dtype
    np.testing.assert_array_equal(got.numpy(), want)


def test_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for nan_to_num")
    a = np.array(VALUES, dtype=np.complex128)
    np.testing.assert_array_equal(cygrad.nan_to_num(cygrad.tensor(a), nan=1.0).numpy(),
                                  torch.nan_to_num(torch.tensor(a), nan=1.0).numpy())


def test_on_the_emulated_gpu():
    from cygrad.cuda._driver import signature
    if signature.find_cxx() is None:
        pytest.skip("the emulated CUDA driver needs a host C++ compiler")
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "cuda"))
    from fake_driver import installed
    from cygrad.cuda._driver.emulated import EmulatedDriver
    a = np.array(VALUES, dtype=np.complex64)
    with installed(EmulatedDriver(memory=1 << 26)):
        got = cygrad.nan_to_num(cygrad.tensor(a, device="cuda")[::-1], posinf=3.0)
        assert got.is_cuda
        np.testing.assert_array_equal(got.cpu().numpy(), np.nan_to_num(a[::-1], posinf=3.0))
