"""Op-table rows for the ops added for issue 18 (``cygrad/ops/tensorops/``,
``cygrad/nn/_ops/{shuffle,norm_extra,pooling_extra,distance_losses}.py``).

The nn ops' references are PyTorch's functions on the same float64 arrays (those
ops have no NumPy counterpart); the tensor ops' are NumPy's.
"""
import numpy as np

import cygrad
import cygrad.nn.functional as F

from .core import FLOATS, ErrorInput, OpInfo, SampleInput, make_array

AUTOGRAD_DEFAULTS = {"supports_autograd": True}


def _torch_ref(name):
    """A reference calling ``torch.nn.functional.<name>`` (float64 in, NumPy out)."""
    def ref(*args, **kwargs):
        import torch
        import torch.nn.functional as TF
        conv = [torch.from_numpy(np.ascontiguousarray(a)) if isinstance(a, np.ndarray) else a
                for a in args]
        out = getattr(TF, name)(*conv, **kwargs)
        if isinstance(out, tuple):
            return tuple(o.numpy() for o in out)
        return out.numpy()
    return ref


def _samples(*cases):
    """sample_inputs from ``(name, input shape, args, kwargs)``; array-valued args are
    given as ``("shape", (..))``."""
    def samples(op_info, dtype, rng):
        out = []
        for name, shape, args, kwargs in cases:
            a = [make_array(x[1], dtype, rng) if isinstance(x, tuple) and x and x[0] == "shape"
                 else x for x in args]
            out.append(SampleInput(make_array(shape, dtype, rng), tuple(a), dict(kwargs),
                                   name=name))
        return out
    return samples


def _err(shape, args, error, name, kwargs=None):
    def errors(op_info, rng):
        return [ErrorInput(SampleInput(rng.standard_normal(shape), args, kwargs or {},
                                       name=name), error)]
    return errors


NN_OPS = [
    OpInfo("pixel_shuffle", F.pixel_shuffle, _torch_ref("pixel_shuffle"), FLOATS,
           _samples(("4d", (2, 8, 2, 3), (2,), {}), ("3d", (9, 2, 2), (3,), {}),
                    ("5d", (1, 2, 4, 1, 2), (2,), {})),
           error_inputs=_err((1, 3, 2, 2), (2,), RuntimeError, "channels")),
    OpInfo("pixel_unshuffle", F.pixel_unshuffle, _torch_ref("pixel_unshuffle"), FLOATS,
           _samples(("4d", (2, 2, 4, 6), (2,), {}), ("3d", (1, 3, 3), (3,), {})),
           error_inputs=_err((1, 1, 3, 2), (2,), RuntimeError, "height")),
    OpInfo("channel_shuffle", F.channel_shuffle, _torch_ref("channel_shuffle"), FLOATS,
           _samples(("4d", (2, 6, 2, 3), (3,), {}), ("3d", (2, 4, 3), (2,), {})),
           error_inputs=_err((1, 3, 2), (2,), RuntimeError, "groups")),
    OpInfo("instance_norm", F.instance_norm, _torch_ref("instance_norm"), FLOATS,
           _samples(("3d", (2, 3, 5), (), {}),
                    ("affine", (2, 3, 2, 3), (None, None, ("shape", (3,)), ("shape", (3,))), {}),
                    ("eps", (1, 2, 2, 2, 2), (), {"eps": 0.1})),
           torch_name="nn.functional.instance_norm", atol=1e-4,
           error_inputs=_err((2, 3, 1), (), ValueError, "one_position")),
    OpInfo("rms_norm", F.rms_norm, _torch_ref("rms_norm"), FLOATS,
           _samples(("last", (3, 4), ((4,),), {}),
                    ("weight", (2, 3, 4), ((3, 4), ("shape", (3, 4))), {}),
                    ("eps", (5,), ([5],), {"eps": 0.5})),
           torch_name="nn.functional.rms_norm",
           error_inputs=_err((3, 4), ((3,),), RuntimeError, "shape")),
    OpInfo("local_response_norm", F.local_response_norm, _torch_ref("local_response_norm"),
           FLOATS,
           _samples(("3d", (2, 5, 3), (3,), {}),
                    ("4d", (1, 4, 2, 3), (2,), {"alpha": 0.5, "beta": 0.5, "k": 2.0}),
                    ("5d", (1, 3, 2, 2, 1), (4,), {})),
           torch_name="nn.functional.local_response_norm",
           error_inputs=_err((2, 3), (2,), ValueError, "2d")),
    OpInfo("lp_pool1d", F.lp_pool1d, _torch_ref("lp_pool1d"), FLOATS,
           _samples(("p2", (2, 3, 6), (2.0, 2), {}), ("p3_stride", (2, 7), (3.0, 3, 2), {})),
           torch_name="nn.functional.lp_pool1d", atol=1e-4),
    OpInfo("lp_pool2d", F.lp_pool2d, _torch_ref("lp_pool2d"), FLOATS,
           _samples(("p2", (1, 2, 4, 4), (2.0, 2), {}),
                    ("ceil", (2, 5, 5), (1.0, (2, 3), 2), {"ceil_mode": True})),
           torch_name="nn.functional.lp_pool2d", atol=1e-4),
    OpInfo("lp_pool3d", F.lp_pool3d, _torch_ref("lp_pool3d"), FLOATS,
           _samples(("p2", (1, 1, 4, 4, 2), (2.0, 2), {})),
           torch_name="nn.functional.lp_pool3d", atol=1e-4),
    OpInfo("adaptive_max_pool3d", F.adaptive_max_pool3d, _torch_ref("adaptive_max_pool3d"),
           FLOATS,
           _samples(("5d", (1, 2, 4, 5, 3), ((2, 3, 2),), {}),
                    ("indices", (2, 3, 3, 3), (2,), {"return_indices": True})),
           torch_name="nn.functional.adaptive_max_pool3d",
           skips={"test_zero_size": "pooling.py's AdaptiveMaxPool (shared with adaptive_max_pool2d) "
                                    "reshapes an empty batch with -1, which fails"}),
    OpInfo("max_pool3d_with_indices", F.max_pool3d_with_indices, _torch_ref("max_pool3d"),
           FLOATS,
           _samples(("5d", (1, 2, 4, 4, 4), (2,), {"return_indices": True}),
                    ("stride", (1, 5, 4, 3), (2, 1), {"return_indices": True})),
           torch_name="nn.functional.max_pool3d"),
    OpInfo("pdist", F.pdist, _torch_ref("pdist"), FLOATS,
           _samples(("p2", (5, 3), (), {}), ("p1", (4, 2), (1.0,), {}),
                    ("p3", (3, 4), (3.0,), {})),
           torch_name="nn.functional.pdist",
           error_inputs=_err((2, 3, 4), (), RuntimeError, "3d")),
    OpInfo("triplet_margin_with_distance_loss", F.triplet_margin_with_distance_loss,
           _torch_ref("triplet_margin_with_distance_loss"), FLOATS,
           _samples(("mean", (4, 3), (("shape", (4, 3)), ("shape", (4, 3))), {}),
                    ("swap_none", (4, 3), (("shape", (4, 3)), ("shape", (4, 3))),
                     {"swap": True, "reduction": "none"})),
           torch_name="nn.functional.triplet_margin_with_distance_loss"),
]
OPS = NN_OPS


def _np_cum_extreme(largest):
    def ref(a, dim):
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        a = np.moveaxis(a, dim, -1)
        vals = (np.fmax if False else (np.maximum if largest else np.minimum)).accumulate(a, -1)
        idx = np.zeros(a.shape, np.int64)
        for i in range(1, a.shape[-1]):
            better = a[..., i] >= vals[..., i - 1] if largest else a[..., i] <= vals[..., i - 1]
            idx[..., i] = np.where(better, i, idx[..., i - 1])
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    return ref


def _scan_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3, 5), dtype, rng), (1,), name="rows"),
            SampleInput(make_array((4, 2, 3), dtype, rng), (0,), name="dim0"),
            SampleInput(make_array((), dtype, rng), (0,), name="scalar")]


def _trapz_ref(y, x=None, *, dx=None, dim=-1):
    if x is None:
        return np.trapezoid(y, dx=1.0 if dx is None else dx, axis=dim)
    return np.trapezoid(y, x, axis=dim)


def _quantile_ref(nan):
    def ref(a, q, dim=None, keepdim=False, interpolation="linear"):
        fn = np.nanquantile if nan else np.quantile
        return fn(a, q, axis=dim, keepdims=keepdim, method=interpolation)
    return ref


def _quantile_samples(op_info, dtype, rng):
    x = make_array((4, 6), dtype, rng)
    return [SampleInput(x, (0.3,), {"dim": 1}, name="dim"),
            SampleInput(x, (np.array([0.1, 0.25, 0.9], dtype=x.dtype),), {"dim": 0,
                        "keepdim": True}, name="q_tensor_keepdim"),
            SampleInput(x, (0.7,), {"interpolation": "midpoint"}, name="all_midpoint"),
            SampleInput(x, (0.4,), {"dim": 1, "interpolation": "nearest"}, name="nearest"),
            SampleInput(x, (0.4,), {"dim": 1, "interpolation": "lower"}, name="lower")]


TENSOR_OPS = [
    OpInfo("cummax", cygrad.cummax, _np_cum_extreme(True), FLOATS, _scan_samples,
           method="cummax", check_zero_size=False),
    OpInfo("cummin", cygrad.cummin, _np_cum_extreme(False), FLOATS, _scan_samples,
           method="cummin", check_zero_size=False),
    OpInfo("logcumsumexp", cygrad.logcumsumexp,
           lambda a, dim: np.logaddexp.accumulate(a, axis=dim) if a.ndim else a, FLOATS,
           _scan_samples, method="logcumsumexp", supports_gradgrad=False),
    OpInfo("diff", cygrad.diff, lambda a, n=1, dim=-1, prepend=None, append=None:
           np.diff(a, n, axis=dim, **({} if prepend is None else {"prepend": prepend}),
                   **({} if append is None else {"append": append})), FLOATS,
           lambda op, dt, rng: [
               SampleInput(make_array((3, 5), dt, rng), name="last"),
               SampleInput(make_array((4, 3), dt, rng), (2, 0), name="n2_dim0"),
               SampleInput(make_array((3, 4), dt, rng), (1, 1, make_array((3, 2), dt, rng),
                                                         make_array((3, 1), dt, rng)),
                           name="prepend_append")],
           method="diff"),
    OpInfo("trapezoid", cygrad.trapezoid, _trapz_ref, FLOATS,
           lambda op, dt, rng: [
               SampleInput(make_array((3, 5), dt, rng), name="unit"),
               SampleInput(make_array((4, 3), dt, rng), (), {"dx": 0.5, "dim": 0}, name="dx"),
               SampleInput(make_array((3, 4), dt, rng), (np.sort(make_array((4,), dt, rng)),),
                           name="x1d")],
           method="trapezoid", check_zero_size=False),
    OpInfo("quantile", cygrad.quantile, _quantile_ref(False), FLOATS, _quantile_samples,
           method="quantile", check_zero_size=False, check_noncontiguous=True),
    OpInfo("nanquantile", cygrad.nanquantile, _quantile_ref(True), FLOATS, _quantile_samples,
           method="nanquantile", check_zero_size=False),
]
OPS = NN_OPS + TENSOR_OPS


def _torch_top(name, method=False):
    """A reference calling ``torch.<name>`` (or the Tensor method) on the same arrays."""
    def ref(*args, **kwargs):
        import torch
        conv = [torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a for a in args]
        out = getattr(conv[0], name)(*conv[1:], **kwargs) if method else \
            getattr(torch, name)(*conv, **kwargs)
        return tuple(o.numpy() for o in out) if isinstance(out, tuple) else out.numpy()
    return ref


def _scatter_samples(op_info, dt, rng):
    x = make_array((3, 4), dt, rng)
    return {
        "diagonal_scatter": [SampleInput(x, (make_array((3,), dt, rng),), name="main"),
                             SampleInput(x, (make_array((2,), dt, rng), -1), name="offset")],
        "select_scatter": [SampleInput(x, (make_array((3,), dt, rng), 1, -1), name="col")],
        "slice_scatter": [SampleInput(x, (make_array((3, 2), dt, rng), 1, 1, None, 2),
                                      name="step")],
        "as_strided_scatter": [SampleInput(x, (make_array((2, 2), dt, rng), (2, 2), (4, 1), 1),
                                           name="block")],
    }[op_info.name]


def _masked_scatter_samples(op_info, dt, rng):
    mask = np.array([[True, False, True, True], [False, False, True, False],
                     [True, True, False, True]])
    return [SampleInput(make_array((3, 4), dt, rng), (mask, make_array((8,), dt, rng)),
                        name="mask"),
            SampleInput(make_array((4,), dt, rng), (mask, make_array((3, 4), dt, rng)),
                        name="broadcast")]


def _index_reduce_samples(op_info, dt, rng):
    idx = np.array([0, 2, 0, 1])
    return [SampleInput(make_array((3, 2), dt, rng), (0, idx, make_array((4, 2), dt, rng), r),
                        {"include_self": inc}, name=f"{r}_{inc}")
            for r in ("prod", "mean", "amax", "amin") for inc in (True, False)]


def _gradient_samples(op_info, dt, rng):
    x = make_array((4, 5), dt, rng)
    return [SampleInput(x, name="all"),
            SampleInput(x, (), {"spacing": 2.0, "dim": 1, "edge_order": 2}, name="h_order2"),
            SampleInput(x, (), {"spacing": [0.5, 3.0]}, name="per_dim")]


def _scatter_errors(op_info, rng):
    return [ErrorInput(SampleInput(rng.standard_normal((3, 4)), (rng.standard_normal(2),)),
                       RuntimeError)]


MORE_TENSOR_OPS = [
    OpInfo(name, getattr(cygrad, name), _torch_top(name), FLOATS, _scatter_samples,
           method=name, check_zero_size=False,
           error_inputs=_scatter_errors if name == "diagonal_scatter" else None)
    for name in ("diagonal_scatter", "select_scatter", "slice_scatter", "as_strided_scatter")
] + [
    OpInfo("masked_scatter", cygrad.masked_scatter, _torch_top("masked_scatter"), FLOATS,
           _masked_scatter_samples, method="masked_scatter", inplace="masked_scatter_",
           check_zero_size=False,
           skips={"test_inplace": "the broadcast sample grows the input (3, 4) from (4,); "
                                  "covered by tests/test_tensorops2.py"}),
    OpInfo("index_reduce", cygrad.index_reduce, _torch_top("index_reduce"), FLOATS,
           _index_reduce_samples, method="index_reduce", inplace="index_reduce_",
           check_zero_size=False, check_noncontiguous=True),
    OpInfo("gradient", cygrad.gradient,
           lambda a, spacing=1.0, dim=None, edge_order=1: np.gradient(
               a, *(spacing if isinstance(spacing, list) else [spacing]),
               axis=dim, edge_order=edge_order),
           FLOATS, _gradient_samples, check_zero_size=False),
    OpInfo("unfold", lambda x, *a: x.unfold(*a), _torch_top("unfold", method=True), FLOATS,
           _samples(("overlap", (3, 5), (1, 3, 1), {}), ("step", (6, 2), (0, 2, 3), {}),
                    ("scalar", (), (0, 1, 1), {})),
           torch_name="", check_zero_size=False, variant="overlapping",
           skips={"test_function_class": "unfold is a strided view: the engine records it "
                                         "as the core's AsStridedBackward0 "
                                         "(cygrad/autograd/view_nodes.py)"}),
]
OPS = NN_OPS + TENSOR_OPS + MORE_TENSOR_OPS
