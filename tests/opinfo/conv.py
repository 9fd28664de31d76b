"""Op-table rows for the convolutions that run on the fused kernels
``conv2d_gemm``/``conv2d_gemm_weight`` (``cygrad/_core/cpu/conv_gemm.c``):
``F.conv1d`` and ``F.conv2d``, and ``F.conv_transpose2d``, whose input gradient
is a convolution on the same kernel.

The references are written here in NumPy, independently of cygrad's im2col:
each kernel offset contributes one strided slice of the padded input times one
slice of the weight (``einsum`` per group). Samples mix stride, padding
(symmetric, ``'same'`` with an even kernel), dilation and groups; those with at
most 100 float elements also go through gradcheck, gradgradcheck and forward mode.
"""
import numpy as np

import cygrad.nn.functional as F

from .core import FLOATS, ErrorInput, OpInfo, SampleInput, make_array

AUTOGRAD_DEFAULTS = {"supports_autograd": True}


def _pairs(v, n):
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


def _conv_ref(n):
    """NumPy ``conv{n}d``: the sum over kernel offsets of strided input slices."""
    def ref(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
        stride, dilation = _pairs(stride, n), _pairs(dilation, n)
        k = w.shape[2:]
        if padding == "same":
            pads = [(d * (kk - 1) // 2, d * (kk - 1) - d * (kk - 1) // 2)
                    for kk, d in zip(k, dilation)]
        else:
            pads = [(p, p) for p in _pairs(padding, n)]
        xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + pads)
        out = [(s - d * (kk - 1) - 1) // t + 1
               for s, kk, d, t in zip(xp.shape[2:], k, dilation, stride)]
        cout, cg = w.shape[0], w.shape[1]
        cog = cout // groups
        res = np.zeros((x.shape[0], cout, *out))
        for off in np.ndindex(*k):
            sl = tuple(slice(o * d, o * d + (m - 1) * t + 1, t)
                       for o, d, m, t in zip(off, dilation, out, stride))
            patch = xp[(slice(None), slice(None)) + sl]
            for g in range(groups):
                res[:, g * cog:(g + 1) * cog] += np.einsum(
                    "nc...,oc->no...", patch[:, g * cg:(g + 1) * cg],
                    w[(slice(g * cog, (g + 1) * cog), slice(None)) + off].astype(np.float64))
        if b is not None:
            res += b.reshape((-1,) + (1,) * n)
        return res
    return ref


def _conv_transpose2d_ref(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                          dilation=1):
    """NumPy ``conv_transpose2d``: each kernel offset adds ``x`` times a weight slice
    onto a strided slice of the padded output, which is then cropped."""
    stride, padding = _pairs(stride, 2), _pairs(padding, 2)
    dilation, output_padding = _pairs(dilation, 2), _pairs(output_padding, 2)
    k = w.shape[2:]
    cin, cog = w.shape[0], w.shape[1]
    cig = cin // groups
    size = [(s - 1) * t + d * (kk - 1) + op + 1
            for s, t, d, kk, op in zip(x.shape[2:], stride, dilation, k, output_padding)]
    res = np.zeros((x.shape[0], cog * groups, *size))
    for off in np.ndindex(*k):
        sl = tuple(slice(o * d, o * d + (m - 1) * t + 1, t)
                   for o, d, m, t in zip(off, dilation, x.shape[2:], stride))
        for g in range(groups):
            res[(slice(None), slice(g * cog, (g + 1) * cog)) + sl] += np.einsum(
                "nc...,co->no...", x[:, g * cig:(g + 1) * cig].astype(np.float64),
                w[(slice(g * cig, (g + 1) * cig), slice(None)) + off].astype(np.float64))
    res = res[:, :, padding[0]:size[0] - padding[0], padding[1]:size[1] - padding[1]]
    if b is not None:
        res = res + b.reshape(-1, 1, 1)
    return res


def _conv2d_samples(op_info, dtype, rng):
    return [
        SampleInput(make_array((1, 2, 4, 4), dtype, rng), (make_array((3, 2, 2, 2), dtype, rng),
                    make_array((3,), dtype, rng)), {"padding": 1}, name="bias_pad"),
        SampleInput(make_array((2, 4, 5, 4), dtype, rng), (make_array((4, 2, 3, 2), dtype, rng),),
                    {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "groups": 2},
                    name="groups_stride_dilation"),
        SampleInput(make_array((1, 2, 5, 5), dtype, rng), (make_array((2, 2, 2, 2), dtype, rng),),
                    {"padding": "same"}, name="same_even_kernel"),
        SampleInput(make_array((3, 16, 12, 12), dtype, rng),
                    (make_array((32, 16, 3, 3), dtype, rng), make_array((32,), dtype, rng)),
                    {"padding": 1}, name="layer"),
        # one output channel: the harness's zero-size test cuts the batch alone
        SampleInput(make_array((2, 2, 4, 4), dtype, rng), (make_array((1, 2, 3, 3), dtype, rng),),
                    {"padding": 1}, name="one_channel"),
    ]


def _conv1d_samples(op_info, dtype, rng):
    return [
        SampleInput(make_array((2, 3, 7), dtype, rng), (make_array((4, 3, 3), dtype, rng),
                    make_array((4,), dtype, rng)), {"stride": 2, "padding": 1}, name="bias"),
        SampleInput(make_array((1, 4, 9), dtype, rng), (make_array((2, 2, 2), dtype, rng),),
                    {"dilation": 3, "groups": 2}, name="groups_dilation"),
        SampleInput(make_array((2, 3, 6), dtype, rng), (make_array((1, 3, 2), dtype, rng),),
                    name="one_channel"),
    ]


def _conv_transpose2d_samples(op_info, dtype, rng):
    return [
        SampleInput(make_array((1, 2, 3, 3), dtype, rng), (make_array((2, 3, 2, 2), dtype, rng),
                    make_array((3,), dtype, rng)), {"stride": 2, "padding": 1,
                                                    "output_padding": 1}, name="stride"),
        SampleInput(make_array((2, 4, 3, 2), dtype, rng), (make_array((4, 1, 2, 3), dtype, rng),),
                    {"groups": 2, "dilation": (2, 1)}, name="groups_dilation"),
        SampleInput(make_array((2, 1, 3, 3), dtype, rng), (make_array((1, 2, 2, 2), dtype, rng),),
                    name="one_channel"),
    ]


def _conv2d_errors(op_info, rng):
    x = rng.standard_normal((1, 4, 5, 5))
    return [
        ErrorInput(SampleInput(x, (rng.standard_normal((2, 3, 3, 3)),)), RuntimeError,
                   match="channels"),
        ErrorInput(SampleInput(x, (rng.standard_normal((3, 2, 3, 3)),), {"groups": 2}),
                   RuntimeError, match="divisible"),
        ErrorInput(SampleInput(x, (rng.standard_normal((2, 4, 3, 3)).astype(np.float32),)),
                   RuntimeError),
        ErrorInput(SampleInput(x, (rng.standard_normal((2, 4, 7, 7)),)), RuntimeError,
                   match="Kernel size"),
        # wider than int64 (found by tests/test_fuzz_seeded.py): PyTorch's ValueError
        ErrorInput(SampleInput(x, (rng.standard_normal((2, 4, 3, 3)),), {"groups": 2 ** 64}),
                   ValueError, match="Overflow"),
    ]


OPS = [
    OpInfo("conv2d", F.conv2d, _conv_ref(2), FLOATS, _conv2d_samples,
           torch_name="nn.functional.conv2d", error_inputs=_conv2d_errors, atol=1e-4,
           rtol=1e-5),
    OpInfo("conv1d", F.conv1d, _conv_ref(1), FLOATS, _conv1d_samples,
           torch_name="nn.functional.conv1d", atol=1e-4, rtol=1e-5),
    OpInfo("conv_transpose2d", F.conv_transpose2d, _conv_transpose2d_ref, FLOATS,
           _conv_transpose2d_samples, torch_name="nn.functional.conv_transpose2d", atol=1e-4,
           rtol=1e-5),
]
