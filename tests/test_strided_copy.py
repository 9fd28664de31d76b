"""Copies of strided views (``contiguous``, ``clone``, ``copy_``) against NumPy.

A copy whose innermost rows are contiguous on both sides moves each row with one
memcpy (cpu/elementwise.c); these check that path for every item size, for rows
that cross chunk boundaries on the pool, and beside copies that take the general
loop (strided inner rows, broadcast sources).
"""
import numpy as np
import pytest

import cygrad
from cygrad._core import tensor as C

DTYPES = ["bool", "uint8", "float16", "bfloat16", "float32", "int32", "float64", "int64",
          "complex64", "complex128"]


def _values(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 10
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x


@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_heads_copy_matches_numpy(dtype):
    # (B, H, T, D) -> (B, T, H, D): rows of D contiguous values on both sides
    t = cygrad.tensor(_values((3, 4, 5, 6), "float64"), dtype=getattr(cygrad, dtype))
    ref = np.asarray(t.numpy()).transpose(0, 2, 1, 3)
    out = t.transpose(1, 2).contiguous()
    assert out.is_contiguous()
    np.testing.assert_array_equal(np.asarray(out.numpy()), ref)


@pytest.mark.parametrize("dtype", ["float32", "complex128", "uint8"])
def test_copy_into_a_strided_destination(dtype):
    src = cygrad.tensor(_values((7, 9, 5), dtype, 1), dtype=getattr(cygrad, dtype))
    dst = cygrad.zeros(9, 7, 5, dtype=getattr(cygrad, dtype))
    dst.transpose(0, 1).copy_(src)              # destination rows of 5, strided outer dims
    np.testing.assert_array_equal(np.asarray(dst.numpy()),
                                  np.asarray(src.numpy()).transpose(1, 0, 2))


def test_general_loop_copies_still_match():
    a = cygrad.tensor(_values((40, 30), "float32"), dtype=cygrad.float32)
    np.testing.assert_array_equal(a.t().contiguous().numpy(), a.numpy().T)      # strided rows
    row = cygrad.tensor(np.arange(5, dtype=np.float32))
    np.testing.assert_array_equal(row.expand(3, 5).contiguous().numpy(),         # broadcast
                                  np.broadcast_to(np.arange(5, dtype=np.float32), (3, 5)))


def test_row_copies_split_across_the_pool():
    # Realistic size, pooled from one element on: chunk boundaries fall inside
    # the outer dims; the result is NumPy's whatever the thread count.
    saved = C._get_parallel_min()
    old_threads = cygrad.get_num_threads()
    try:
        C._set_parallel_min("unary_cheap", 1)
        x = cygrad.tensor(_values((32, 4, 300, 16), "float32", 2), dtype=cygrad.float32)
        ref = x.numpy().transpose(0, 2, 1, 3)
        for threads in (1, 2, 3):
            cygrad.set_num_threads(threads)
            np.testing.assert_array_equal(x.transpose(1, 2).contiguous().numpy(), ref)
    finally:
        C._set_parallel_min("unary_cheap", saved["unary_cheap"])
        cygrad.set_num_threads(old_threads)


def test_copy_of_a_sliced_view_keeps_its_offset():
    base = cygrad.tensor(_values((6, 8, 10), "float64", 3))
    view = base[1:5, ::2, 3:9]                   # inner rows of 6 from offset 3
    np.testing.assert_array_equal(view.contiguous().numpy(), base.numpy()[1:5, ::2, 3:9])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(37, 45), (16, 16), (3, 70, 33)])
def test_transposing_copy_matches_numpy(dtype, shape):
    # The two innermost dims swap (destination rows contiguous, source columns
    # contiguous): the tiled path, with 8 x 8 blocks for 4-byte items and edges
    # that fit neither a tile nor a block.
    t = cygrad.tensor(_values(shape, "float64", 4), dtype=getattr(cygrad, dtype))
    ref = np.swapaxes(np.asarray(t.numpy()), -1, -2)
    out = t.transpose(-1, -2).contiguous()
    np.testing.assert_array_equal(np.asarray(out.numpy()), ref)


def test_transposing_copies_of_views_and_across_the_pool():
    saved = C._get_parallel_min()
    old_threads = cygrad.get_num_threads()
    base = cygrad.tensor(_values((5, 300, 260), "float32", 5), dtype=cygrad.float32)
    view = base[1:4, 7:290:1, 3:250]               # offsets inside every dim
    ref = np.ascontiguousarray(view.numpy().transpose(0, 2, 1))
    try:
        C._set_parallel_min("unary_cheap", 1)
        for threads in (1, 2, 3):
            cygrad.set_num_threads(threads)
            np.testing.assert_array_equal(view.transpose(1, 2).contiguous().numpy(), ref)
            dst = cygrad.zeros(3, 247, 283)
            dst.copy_(view.transpose(1, 2))
            np.testing.assert_array_equal(dst.numpy(), ref)
    finally:
        C._set_parallel_min("unary_cheap", saved["unary_cheap"])
        cygrad.set_num_threads(old_threads)
