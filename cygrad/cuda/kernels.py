"""Launching cygrad's CUDA kernels: the module cache, launch configuration and
argument packing, shared by every CUDA entry of the kernel table
(:mod:`cygrad.cuda.tensors`).

Each ``cuda_src/<family>.cu`` file is loaded once per driver and kept; kernels
are looked up by their ``extern "C"`` name with the dtype suffix (``f32``,
``f64``). Launches go on the current stream of the output's device. A kernel's
error flag can be read back without making the host wait (:func:`check_later`,
:func:`run_checks`).

Examples
--------
>>> from cygrad.cuda import kernels
>>> kernels.suffix("float32"), kernels.grid_1d(1000)
('f32', (4, 1, 1))
"""
import pathlib
import struct

from .._core import launch_fast as _launch_fast
from . import _runtime
from .streams import _current_stream

# A source checkout reads the repository's cuda_src/; a wheel carries copies of the
# same files in cygrad/cuda/kernels_src/ (setup.py's build_py).
_SRC = pathlib.Path(__file__).resolve().parents[2] / "cuda_src"
if not _SRC.is_dir():
    _SRC = pathlib.Path(__file__).resolve().parent / "kernels_src"
_SUFFIXES = {"float32": "f32", "float64": "f64"}
_modules = {}          # (driver, file name) -> loaded Module

#: threads per block of the 1-D (elementwise) kernels
BLOCK = 256
#: a 1-D grid covers at most this many blocks; the kernels' grid-stride loops do the rest
MAX_BLOCKS = 4096
#: dims of cg_geometry (cuda_src/elementwise.cu's CG_MAX_DIMS)
MAX_DIMS = 16
#: threads per side of matmul.cu's blocks
TILE = 16
#: the side of the tile of C one block of matmul.cu computes (4 x 4 per thread)
MM_BLOCK_TILE = 64

_GEOMETRY = struct.Struct("<i4x" + "q" * (4 * MAX_DIMS))
_MM_STRIDES = struct.Struct("<9q")


def suffix(dtype_name):
    """The kernel-name suffix of a dtype, or None when the CUDA kernels lack it.

    Examples
    --------
    >>> from cygrad.cuda.kernels import suffix
    >>> suffix("float64"), suffix("int64")
    ('f64', None)
    """
    return _SUFFIXES.get(dtype_name)


def function(file, name):
    """Kernel ``name`` of ``cuda_src/<file>``, loading the file once per driver.

    Examples
    --------
    >>> from cygrad.cuda.kernels import function
    >>> callable(function)
    True
    """
    d = _runtime.driver()
    key = (d, file)
    mod = _modules.get(key)
    if mod is None:
        path = _SRC / file
        if not path.is_file():
            raise RuntimeError(f"cygrad.cuda: kernel source {path} not found (this "
                               "installation of cygrad is missing its CUDA kernel sources)")
        mod = _modules[key] = d.load_module(str(path))
    return mod.get_function(name)


def grid_1d(n):
    """A grid for ``n`` elements with :data:`BLOCK` threads per block.

    Examples
    --------
    >>> from cygrad.cuda.kernels import grid_1d
    >>> grid_1d(0), grid_1d(257)
    ((1, 1, 1), (2, 1, 1))
    """
    return (max(1, min(MAX_BLOCKS, -(-n // BLOCK))), 1, 1)


def geometry(shape, out_strides, a_strides=(), b_strides=()):
    """The bytes of a ``cg_geometry`` (strides in elements; missing operands 0).

    Examples
    --------
    >>> from cygrad.cuda.kernels import geometry
    >>> len(geometry((2, 3), (3, 1)))
    520
    """
    nd = len(shape)
    if nd > MAX_DIMS:
        raise RuntimeError(f"cygrad's CUDA kernels support at most {MAX_DIMS} dimensions, got {nd}")
    pad = [0] * (MAX_DIMS - nd)

    def field(values):
        values = list(values) if len(values) else [0] * nd
        return values + pad
    return _GEOMETRY.pack(nd, *field(shape), *field(out_strides), *field(a_strides),
                          *field(b_strides))


def mm_strides(a, b, c):
    """The bytes of a ``cg_mm_strides``: ``(batch, row, col)`` steps of each operand.

    Examples
    --------
    >>> from cygrad.cuda.kernels import mm_strides
    >>> len(mm_strides((0, 4, 1), (0, 1, 4), (16, 4, 1)))
    72
    """
    return _MM_STRIDES.pack(*a, *b, *c)


_plans = {}     # (driver, device index, file, name, grid, block) -> the driver's launch plan
_MAX_PLANS = 4096


def _new_plan(key):
    """The driver's launch plan of ``key`` = (driver, device index, file, kernel
    name, grid, block), made and kept in :data:`_plans`."""
    d, _, file, name, grid, block = key
    if len(_plans) >= _MAX_PLANS:       # (grids follow sizes: keep the table bounded)
        _plans.clear()
    plan = _plans[key] = d.launcher(function(file, name), grid, block)
    return plan


def _launch_elsewhere(device_index, file, name, grid, block, args, stream):
    # a launch on a device other than the thread's current one (no plan kept)
    with _runtime.on_device(device_index) as d:
        d.launch(function(file, name), grid, block, args, stream=stream)


# kernels.launch: compiled (cygrad/_core/launch_fast.pyx), as it runs on every op
launch = _launch_fast.launch
launch.__module__ = __name__        # (documented, and pickled by name, as this module's)
_launch_fast.bind(_runtime.driver, _runtime._current, _current_stream, _plans, _new_plan,
                  _launch_elsewhere)
_launch_fast.bind_runtime(_runtime._drv, _runtime._state, _runtime._tls, _runtime._pkg)


def zero_fill(t):
    """Set the bytes of a new, dense CUDA tensor ``t`` to zero on its device's
    current stream with the driver's memset (no kernel launch); returns ``t``.

    Examples
    --------
    >>> from cygrad.cuda.kernels import zero_fill
    >>> callable(zero_fill)
    True
    """
    nbytes = t.numel() * t.element_size()
    if nbytes:
        idx = t.device.index
        stream = _current_stream(idx).handle
        if _runtime._current() == idx:
            _runtime.driver().memset_d8(t.data_ptr(), 0, nbytes, stream)
        else:
            with _runtime.on_device(idx) as d:
                d.memset_d8(t.data_ptr(), 0, nbytes, stream)
    return t


# ---------------------------------------------------------------- checks read back later

_LATER_MAX = 1024
_later = []             # (driver, flag, report) of checks not read back yet, oldest first
_reading = [False]


def check_later(flag, report):
    """Read the one-element device flag ``flag`` back as an int and pass it to
    ``report`` (which raises for a bad value), without making the host wait: at
    once where the driver has already run the kernel (the emulated GPU, whose calls
    finish before they return), else at the next point where the host waits for
    the device anyway (:func:`run_checks`: every device-to-host copy, ``.item()``
    and ``.cpu()`` included, and the ``synchronize`` calls). Past 1024 waiting
    checks the oldest is read at once (a loop that never reads anything back then
    waits once per check, on work queued long before).

    Examples
    --------
    >>> from cygrad.cuda.kernels import check_later
    >>> callable(check_later)
    True
    """
    d = _runtime.driver()
    if d.synchronous:
        report(int(flag.item()))
        return
    _later.append((d, flag, report))
    if len(_later) > _LATER_MAX:
        _run(1)


def run_checks():
    """Read back and report the flags :func:`check_later` kept, oldest first (the
    host waits for the device here anyway); the first bad one raises, the others
    stay for the next call. Checks of a driver no longer installed are dropped.

    Examples
    --------
    >>> from cygrad.cuda.kernels import run_checks
    >>> run_checks()
    """
    if _later and not _reading[0]:
        _run(len(_later))


def _run(count):
    _reading[0] = True          # (the flag's own read comes back through the copy hook)
    try:
        current = _runtime._drv._driver
        for _ in range(count):
            if not _later:
                break
            d, flag, report = _later.pop(0)
            if d is current:
                report(int(flag.item()))
    finally:
        _reading[0] = False


# matmul.cu's products by dtype: the float types (half ones summed in float) and
# complex; integer and bool products have no kernel (nor in PyTorch's CUDA)
_PRODUCT_SUFFIXES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
                     "complex64": "c64", "complex128": "c128"}
#: the names of the dtypes matmul.cu's products cover
PRODUCT_DTYPES = tuple(_PRODUCT_SUFFIXES)


def product_suffix(primitive, dtype):
    """The kernel-name suffix of ``matmul.cu``'s product for ``dtype`` (a cygrad
    dtype), for the launcher of ``primitive``; ``NotImplementedError`` naming the
    primitive, the dtype and the device for a dtype it lacks.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.cuda.kernels import product_suffix
    >>> product_suffix("matmul_into", cygrad.bfloat16), product_suffix("matmul_into", cygrad.complex64)
    ('bf16', 'c64')
    """
    sfx = _PRODUCT_SUFFIXES.get(dtype.name)
    if sfx is None:
        raise NotImplementedError(
            f"no 'cuda' kernel for primitive '{primitive}' for dtype {dtype} (CUDA matrix "
            "products cover float16, bfloat16, float32, float64, complex64 and complex128)")
    return sfx
