"""Op-table rows for ``F.grid_sample`` and ``F.affine_grid``
(``cygrad/nn/_ops/grid_sample.py``). The references are PyTorch's functions on the
same float64 arrays: neither op has a NumPy counterpart."""
import cygrad.nn.functional as F

from .core import FLOATS, ErrorInput, OpInfo, SampleInput, make_array
from .tensorops import _torch_ref

AUTOGRAD_DEFAULTS = {"supports_autograd": True}


def _grid_samples(op_info, dtype, rng):
    def grid(shape):                       # coordinates partly outside [-1, 1]
        return make_array(shape, dtype, rng, low=-1.3, high=1.3)
    return [
        SampleInput(make_array((2, 3, 4, 5), dtype, rng), (grid((2, 3, 2, 2)),),
                    {"align_corners": False}, name="bilinear_zeros"),
        SampleInput(make_array((1, 2, 3, 4), dtype, rng), (grid((1, 2, 3, 2)),),
                    {"padding_mode": "border", "align_corners": True}, name="bilinear_border"),
        SampleInput(make_array((1, 2, 3, 4), dtype, rng), (grid((1, 3, 2, 2)),),
                    {"padding_mode": "reflection", "align_corners": False}, name="reflection"),
        SampleInput(make_array((1, 2, 3, 4), dtype, rng), (grid((1, 2, 2, 2)),),
                    {"mode": "nearest", "align_corners": False}, name="nearest"),
        SampleInput(make_array((1, 2, 3, 4), dtype, rng), (grid((1, 2, 2, 2)),),
                    {"mode": "bicubic", "padding_mode": "border", "align_corners": True},
                    name="bicubic"),
        SampleInput(make_array((1, 2, 2, 3, 2), dtype, rng), (grid((1, 2, 1, 2, 3)),),
                    {"align_corners": False}, name="trilinear"),
    ]


def _grid_errors(op_info, rng):
    x = rng.standard_normal((2, 3, 4, 5))
    return [ErrorInput(SampleInput(x, (rng.standard_normal((1, 2, 2, 2)),),
                                   {"align_corners": False}, name="batch"), RuntimeError),
            ErrorInput(SampleInput(x, (rng.standard_normal((2, 2, 2, 2)),),
                                   {"mode": "cubic", "align_corners": False}, name="mode"),
                       ValueError)]


def _affine_samples(op_info, dtype, rng):
    return [SampleInput(make_array((2, 2, 3), dtype, rng), ([2, 1, 3, 4],),
                        {"align_corners": False}, name="2d"),
            SampleInput(make_array((1, 3, 4), dtype, rng), ([1, 1, 2, 3, 2],),
                        {"align_corners": True}, name="3d")]


def _affine_errors(op_info, rng):
    return [ErrorInput(SampleInput(rng.standard_normal((2, 3, 3)), ([2, 1, 3, 4],),
                                   {"align_corners": False}, name="theta_shape"), ValueError)]


OPS = [
    OpInfo("grid_sample", F.grid_sample, _torch_ref("grid_sample"), FLOATS, _grid_samples,
           torch_name="nn.functional.grid_sample", error_inputs=_grid_errors,
           check_zero_size=False, atol=1e-6, rtol=1e-5),
    OpInfo("affine_grid", F.affine_grid, _torch_ref("affine_grid"), FLOATS, _affine_samples,
           torch_name="nn.functional.affine_grid", error_inputs=_affine_errors,
           check_zero_size=False, atol=1e-6, rtol=1e-5),
]
