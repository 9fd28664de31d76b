"""CPU kernels of the sliding-window ops (``cygrad/nn/_ops/conv.py``, ``pooling.py``):
C loops in ``cygrad/_core/cpu/conv.c`` behind :mod:`cygrad._core.conv_kernels`,
each over any number of spatial dims of an ``(N, C, *spatial)`` tensor, with the
GIL released and large sizes split over the thread pool:

* ``im2col(x, kernel, dilation, pads, stride, out, channel_major=False)``: window
  columns, any dtype of at most 8 bytes (``dispatch.lookup`` offers it for those);
* ``col2im(cols, channels, size, kernel, dilation, pads, stride, out)``: its adjoint;
* ``max_pool_nd(x, kernel, dilation, pads, stride, out)``: ``(values, indices)``,
  indices into the flattened spatial plane;
* ``max_pool_nd_backward(grad, indices, size)``: the gradient scatter;
* ``conv2d_gemm``, ``conv2d_gemm_weight``, ``conv2d_gemm_input``: a 2-d
  convolution, its weight gradient and its input gradient, im2col and BLAS per
  cache-sized block of output rows (``cpu/conv_gemm.c``; float32/float64, and only
  where an ILP64 OpenBLAS is connected).

The last three cover float32 and float64 (``dispatch.lookup`` finds them only for
those); the ops compute other dtypes with tensor ops.

Examples
--------
>>> import cygrad
>>> from cygrad._core import dispatch
>>> x = cygrad.arange(4.0).reshape(1, 1, 4)
>>> dispatch.kernel("im2col", "cpu")(x, (2,), (1,), (0,), (2,), (2,)).tolist()
[[[0.0, 2.0], [1.0, 3.0]]]
>>> dispatch.lookup("col2im", "cpu", cygrad.float16) is None
True
"""
from .. import conv_kernels
from .. import dtype as _dt
from ..dispatch import register

# cpu/conv.c copies elements of 1, 2, 4 or 8 bytes: complex128 takes the ops' tensor path
register("im2col", "cpu", dtypes=tuple(d.name for d in _dt.ALL_DTYPES
                                       if d.itemsize <= 8))(conv_kernels.im2col)
register("col2im", "cpu", dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.col2im)
register("max_pool_nd", "cpu", dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.max_pool)
register("max_pool_nd_backward", "cpu",
         dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.max_pool_backward)
# 2-d convolution and its weight and input gradients by blocks unfolded in cache and BLAS
# (cpu/conv_gemm.c); only where an ILP64 OpenBLAS is connected.
if conv_kernels.gemm_ready():
    register("conv2d_gemm", "cpu", dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.conv2d_gemm)
    register("conv2d_gemm_weight", "cpu",
             dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.conv2d_gemm_weight)
    register("conv2d_gemm_input", "cpu",
             dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.conv2d_gemm_input)
