"""Op-table rows for ``cygrad/ops/linalg.py``: matmul and its special cases, outer,
inner, einsum, tensordot and the ``addmm`` family, checked against NumPy.

Integer samples stay in [-3, 4) so that no product overflows even int8 (PyTorch and
NumPy agree on the values then, whatever their accumulator type).
"""
import numpy as np

import cygrad

from .core import (ALL, ALL_NUMERIC, FLOATS, ErrorInput, OpInfo, SampleInput, is_float,
                   make_array)


def _arr(shape, dtype, rng):
    if is_float(dtype):
        return make_array(shape, dtype, rng)
    return make_array(shape, dtype, rng, low=-3, high=4)


def _pairs(pairs):
    """sample_inputs from {name: (lhs shape, rhs shape)}."""
    def samples(op_info, dtype, rng):
        return [SampleInput(_arr(a, dtype, rng), (_arr(b, dtype, rng),), name=n)
                for n, (a, b) in pairs.items()]
    return samples


MATMUL_SHAPES = {
    "dot": ((5,), (5,)),
    "mat_vec": ((2, 3), (3,)),
    "vec_mat": ((3,), (3, 4)),
    "mat_mat": ((2, 3), (3, 4)),
    "batched_broadcast": ((5, 1, 2, 3), (4, 3, 6)),
    "batch_vec": ((2, 2, 3), (3,)),
    "vec_batch": ((3,), (2, 3, 4)),
    "batch_mat": ((2, 2, 3), (3, 4)),
    "mat_batch": ((2, 3), (5, 3, 4)),
    "empty_k": ((2, 0), (0, 3)),
    "empty_rows": ((0, 3), (3, 2)),
}


def _matmul_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput(f32(2, 3), (f32(4, 5),), name="shape_mismatch"), RuntimeError,
                   r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"),
        ErrorInput(SampleInput(f32(2, 3), (f32(3, 2).astype(np.float64),), name="dtype_mismatch"),
                   RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != double"),
        ErrorInput(SampleInput(f32(3), (f32(3).astype(np.float64),), name="dot_dtype"),
                   RuntimeError, "dot : expected both vectors to have same dtype, but found Float and Double"),
        ErrorInput(SampleInput(np.ones((), np.float32), (f32(3),), name="zero_dim"),
                   RuntimeError, "both arguments to matmul need to be at least 1D"),
        ErrorInput(SampleInput(f32(2, 2, 3), (f32(3, 4, 5),), name="batch_mismatch"), RuntimeError,
                   "must match the size of tensor b"),
        ErrorInput(SampleInput(f32(2, 2, 3), (f32(2, 4, 5),), name="batched_inner_mismatch"),
                   RuntimeError, "Expected size for first two dimensions of batch2 tensor"),
        ErrorInput(SampleInput(np.ones((2, 3), bool), (np.ones((3, 2), bool),), name="bool"),
                   NotImplementedError),
    ]


def _mm_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput(f32(3), (f32(3, 2),), name="vector_self"), RuntimeError,
                   "self must be a matrix"),
        ErrorInput(SampleInput(f32(2, 3), (f32(3),), name="vector_mat2"), RuntimeError,
                   "mat2 must be a matrix"),
        ErrorInput(SampleInput(f32(2, 3), (f32(4, 3),), name="shape_mismatch"), RuntimeError,
                   r"\(2x3 and 4x3\)"),
    ]


def _bmm_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput(f32(2, 3), (f32(2, 3, 4),), name="2d"), RuntimeError,
                   "batch1 must be a 3D tensor"),
        ErrorInput(SampleInput(f32(2, 2, 3), (f32(3, 3, 4),), name="batch_size"), RuntimeError,
                   r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[3, 3\]"),
        ErrorInput(SampleInput(f32(2, 2, 3), (f32(2, 3, 4).astype(np.float64),), name="dtype"),
                   RuntimeError, "expected scalar type Float but found Double"),
    ]


def _mv_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput(f32(2, 3), (f32(4),), name="size"), RuntimeError,
                   r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"),
        ErrorInput(SampleInput(f32(3), (f32(3),), name="rank"), RuntimeError,
                   "vector \\+ matrix @ vector expected, got 1, 1, 1"),
    ]


def _dot_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput(f32(3), (f32(4),), name="size"), RuntimeError,
                   "inconsistent tensor size"),
        ErrorInput(SampleInput(f32(3, 1), (f32(3),), name="rank"), RuntimeError,
                   "1D tensors expected, but got 2D and 1D tensors"),
        ErrorInput(SampleInput(f32(3), (f32(3).astype(np.float64),), name="dtype"), RuntimeError,
                   "same dtype"),
    ]


def _outer_errors(op_info, rng):
    return [ErrorInput(SampleInput(np.ones((3, 1), np.float32), (np.ones(4, np.float32),),
                                   name="matrix"), RuntimeError,
                       "outer: Expected 1-D argument self, but got 2-D")]


def _inner_samples(op_info, dtype, rng):
    return [SampleInput(_arr((2, 3), dtype, rng), (_arr((4, 3), dtype, rng),), name="mats"),
            SampleInput(_arr((3,), dtype, rng), (_arr((3,), dtype, rng),), name="vecs"),
            SampleInput(_arr((2, 2, 3), dtype, rng), (_arr((3,), dtype, rng),), name="batch_vec")]


def _inner_ref(a, b):
    return np.inner(a, b)


EINSUM_CASES = {
    "matmul": ("ij,jk->ik", [(2, 3), (3, 4)]),
    "implicit": ("ij,jk", [(2, 3), (3, 4)]),
    "batched": ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    "trace": ("ii", [(3, 3)]),
    "diag": ("ii->i", [(3, 3)]),
    "transpose": ("ij->ji", [(2, 3)]),
    "sum_axis": ("ij->j", [(2, 3)]),
    "outer": ("i,j->ij", [(2,), (3,)]),
    "three": ("ij,jk,k->i", [(2, 3), (3, 4), (4,)]),
    "ellipsis": ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]),
    "ellipsis_bcast": ("...ij,...jk", [(2, 1, 2, 3), (4, 3, 2)]),
    "spaces": ("i j , j k -> i k", [(2, 3), (3, 4)]),
    "upper": ("Ab,bC->AC", [(2, 3), (3, 4)]),
}


def _einsum_samples(op_info, dtype, rng):
    out = []
    for name, (eq, shapes) in EINSUM_CASES.items():
        ops = [_arr(s, dtype, rng) for s in shapes]
        out.append(SampleInput(eq, tuple(ops), name=name))
    return out


def _einsum_ref(eq, *ops):
    return np.einsum(eq.replace(" ", ""), *ops)


def _einsum_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput("ij,jk->ik", (f32(2, 3), f32(4, 4)), name="size"), RuntimeError,
                   "subscript j has size 4 for operand 1"),
        ErrorInput(SampleInput("ij,jk->ik", (f32(2, 3),), name="too_few"), RuntimeError,
                   "fewer operands"),
        ErrorInput(SampleInput("ijk->", (f32(2, 3),), name="rank"), RuntimeError,
                   "does not match the number of dimensions"),
        ErrorInput(SampleInput("ij->jj", (f32(2, 3),), name="repeated_output"), RuntimeError,
                   "appears more than once in the output"),
        ErrorInput(SampleInput("ij,jk->ik", (f32(2, 3), f32(3, 4).astype(np.float64)),
                               name="dtype"), RuntimeError, "expected scalar type Float"),
    ]


def _tensordot_samples(op_info, dtype, rng):
    return [
        SampleInput(_arr((2, 3, 4), dtype, rng), (_arr((3, 4, 5), dtype, rng),), {"dims": 2},
                    name="dims2"),
        SampleInput(_arr((2, 3, 4), dtype, rng), (_arr((3, 5), dtype, rng),),
                    {"dims": ([1], [0])}, name="lists"),
        SampleInput(_arr((2, 3), dtype, rng), (_arr((4,), dtype, rng),), {"dims": 0}, name="outer"),
        SampleInput(_arr((3, 2, 4), dtype, rng), (_arr((4, 3), dtype, rng),),
                    {"dims": ([0, 2], [1, 0])}, name="permuted"),
    ]


def _tensordot_ref(a, b, dims=2):
    if isinstance(dims, int):
        return np.tensordot(a, b, axes=dims)
    return np.tensordot(a, b, axes=(list(dims[0]), list(dims[1])))


def _tensordot_errors(op_info, rng):
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    return [
        ErrorInput(SampleInput(f32(2, 3, 4), (f32(4, 4, 5),), {"dims": 2}, name="size"),
                   RuntimeError, "contracted dimensions need to match"),
        ErrorInput(SampleInput(f32(2, 3, 4), (f32(3, 4, 5),), {"dims": -1}, name="negative"),
                   RuntimeError, "tensordot expects dims >= 0"),
        ErrorInput(SampleInput(f32(2, 3, 4), (f32(3, 4, 5),), {"dims": ([1], [0, 1])},
                               name="lengths"), RuntimeError, "same length"),
    ]


def _addmm_samples(op_info, dtype, rng):
    return [
        SampleInput(_arr((2, 4), dtype, rng), (_arr((2, 3), dtype, rng), _arr((3, 4), dtype, rng)),
                    name="plain"),
        SampleInput(_arr((4,), dtype, rng), (_arr((2, 3), dtype, rng), _arr((3, 4), dtype, rng)),
                    {"beta": 0.5, "alpha": 2.0}, name="broadcast_scaled"),
    ]


def _addmm_ref(inp, a, b, beta=1, alpha=1):
    return beta * inp + alpha * (a @ b)


def _addmv_samples(op_info, dtype, rng):
    return [SampleInput(_arr((2,), dtype, rng), (_arr((2, 3), dtype, rng), _arr((3,), dtype, rng)),
                        {"beta": 2.0, "alpha": 0.5}, name="scaled")]


def _baddbmm_samples(op_info, dtype, rng):
    return [SampleInput(_arr((2, 2, 4), dtype, rng),
                        (_arr((2, 2, 3), dtype, rng), _arr((2, 3, 4), dtype, rng)),
                        {"alpha": 2.0}, name="scaled")]


def _addbmm_samples(op_info, dtype, rng):
    return [SampleInput(_arr((2, 4), dtype, rng),
                        (_arr((3, 2, 5), dtype, rng), _arr((3, 5, 4), dtype, rng)),
                        {"beta": 0.5}, name="scaled")]


def _addbmm_ref(inp, a, b, beta=1, alpha=1):
    return beta * inp + alpha * np.matmul(a, b).sum(axis=0)


def _addr_samples(op_info, dtype, rng):
    return [SampleInput(_arr((2, 3), dtype, rng), (_arr((2,), dtype, rng), _arr((3,), dtype, rng)),
                        {"alpha": 3.0}, name="scaled")]


def _addr_ref(inp, a, b, beta=1, alpha=1):
    return beta * inp + alpha * np.outer(a, b)


_DOT_SHAPES = {"vec": ((5,), (5,)), "empty": ((0,), (0,))}

# Every product is differentiable in all its operands.
AUTOGRAD_DEFAULTS = {"supports_autograd": True}

OPS = [
    OpInfo("matmul", cygrad.matmul, np.matmul, dtypes=ALL_NUMERIC,
           sample_inputs=_pairs(MATMUL_SHAPES), method="matmul", supports_out=True,
           error_inputs=_matmul_errors),
    OpInfo("mm", cygrad.mm, np.matmul, dtypes=ALL_NUMERIC,
           sample_inputs=_pairs({"mat_mat": ((2, 3), (3, 4)), "tall": ((4, 2), (2, 5)),
                                 "rank1": ((4, 1), (1, 5)), "empty_k": ((3, 0), (0, 2))}),
           method="mm", supports_out=True, error_inputs=_mm_errors),
    OpInfo("bmm", cygrad.bmm, np.matmul, dtypes=ALL_NUMERIC,
           sample_inputs=_pairs({"batch": ((2, 2, 3), (2, 3, 4)), "one_row": ((3, 1, 2), (3, 2, 4))}),
           method="bmm", supports_out=True, error_inputs=_bmm_errors),
    OpInfo("mv", cygrad.mv, np.matmul, dtypes=ALL_NUMERIC,
           sample_inputs=_pairs({"mat_vec": ((2, 3), (3,)), "empty": ((0, 3), (3,))}),
           method="mv", supports_out=True, error_inputs=_mv_errors),
    OpInfo("dot", cygrad.dot, np.dot, dtypes=ALL_NUMERIC, sample_inputs=_pairs(_DOT_SHAPES),
           method="dot", supports_out=True, error_inputs=_dot_errors),
    OpInfo("vdot", cygrad.vdot, np.vdot, dtypes=ALL_NUMERIC, sample_inputs=_pairs(_DOT_SHAPES),
           method="vdot", supports_out=True),
    OpInfo("inner", cygrad.inner, _inner_ref, dtypes=ALL_NUMERIC, sample_inputs=_inner_samples,
           method="inner"),
    OpInfo("outer", cygrad.outer, np.outer, dtypes=ALL,
           sample_inputs=_pairs({"vecs": ((3,), (4,))}), method="outer", supports_out=True,
           error_inputs=_outer_errors,
           check_zero_size=False),    # the generic dim-0 cut leaves no aligned operand
    OpInfo("ger", cygrad.ger, np.outer, dtypes=FLOATS,
           sample_inputs=_pairs({"vecs": ((3,), (4,))}), method="ger", check_zero_size=False),
    OpInfo("einsum", cygrad.einsum, _einsum_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_einsum_samples, error_inputs=_einsum_errors,
           check_zero_size=False),    # equation-specific shapes: no generic dim-0 cut
    OpInfo("tensordot", cygrad.tensordot, _tensordot_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_tensordot_samples, error_inputs=_tensordot_errors),
    OpInfo("addmm", cygrad.addmm, _addmm_ref, dtypes=FLOATS, sample_inputs=_addmm_samples,
           method="addmm", inplace="addmm_", check_zero_size=False),   # operands don't align on dim 0
    OpInfo("addmv", cygrad.addmv, _addmm_ref, dtypes=FLOATS, sample_inputs=_addmv_samples,
           method="addmv", inplace="addmv_", check_zero_size=False),   # operands don't align on dim 0
    OpInfo("baddbmm", cygrad.baddbmm, _addmm_ref, dtypes=FLOATS, sample_inputs=_baddbmm_samples,
           method="baddbmm", inplace="baddbmm_"),
    OpInfo("addbmm", cygrad.addbmm, _addbmm_ref, dtypes=FLOATS, sample_inputs=_addbmm_samples,
           method="addbmm", inplace="addbmm_", check_zero_size=False),  # operands don't align on dim 0
    OpInfo("addr", cygrad.addr, _addr_ref, dtypes=FLOATS, sample_inputs=_addr_samples,
           method="addr", inplace="addr_"),
]
