"""The CPU backend: fills the kernel table (:mod:`cygrad._core.dispatch`) with the
CPU's primitive kernels.

C kernels come from the compiled modules next to this file; where NumPy is still
the best CPU implementation of a primitive, the NumPy call lives here and nowhere
above the array layer.

Sliding windows (``conv_kernels``, C in ``cpu/conv.c``), each over any number of
spatial dims of an ``(N, C, *spatial)`` tensor:

* ``im2col(x, kernel, dilation, pads, stride, out)``: window columns, any dtype;
* ``col2im(cols, channels, size, kernel, dilation, pads, stride, out)``: its adjoint;
* ``max_pool_nd(x, kernel, dilation, pads, stride, out)``: ``(values, indices)``,
  indices into the flattened spatial plane;
* ``max_pool_nd_backward(grad, indices, size)``: the gradient scatter.

Examples
--------
>>> from cygrad._core import dispatch
>>> "im2col" in dispatch.primitives("cpu")
True
"""
from . import conv_kernels
from .dispatch import register

register("im2col", "cpu")(conv_kernels.im2col)
register("col2im", "cpu", dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.col2im)
register("max_pool_nd", "cpu", dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.max_pool)
register("max_pool_nd_backward", "cpu",
         dtypes=conv_kernels.FLOAT_DTYPES)(conv_kernels.max_pool_backward)
