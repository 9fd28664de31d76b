"""Checks of lesson 02's exercise (the dtype ``tensor()`` infers from Python data)
against PyTorch's documented rules: bool -> bool, int -> int64, float -> the default
dtype, complex -> the default dtype's complex counterpart."""
import numpy as np
import pytest

import cygrad


@pytest.mark.parametrize("data, dtype", [
    ([True, False], cygrad.bool), ([1, 2, 3], cygrad.int64), ([[1, 2], [3, 4]], cygrad.int64),
    ([1.5, 2], cygrad.float32), ([1, 2.0], cygrad.float32),
    (7, cygrad.int64), (0.5, cygrad.float32)])
def test_inferred_dtypes(data, dtype):
    t = cygrad.tensor(data)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(data))


def test_default_dtype_decides_floats(default_dtype_guard):
    cygrad.set_default_dtype(cygrad.float64)
    assert cygrad.tensor([0.5]).dtype == cygrad.float64
    assert cygrad.tensor([1j]).dtype == cygrad.complex128
    assert cygrad.tensor([3]).dtype == cygrad.int64            # ints do not follow it
