"""``scatter_reduce_weights`` on CUDA: the constant weights of ``scatter_reduce``'s
derivative (``cuda_src/indexing.cu``, section 6), with the return convention of the
CPU kernel (``cygrad/_core/backend_cpu/indexing.py``).

Examples
--------
>>> from cygrad.cuda.ops._scatter_weights import scatter_reduce_weights
>>> callable(scatter_reduce_weights)
True
"""
from ..._core import dtype as _dt
from . import _index_common as c

_SRW_TYPES = {"float32": "f32", "float64": "f64"}


def scatter_reduce_weights(x, dim, index, src, result, reduce, include_self):
    """The weights of ``scatter_reduce``'s derivative for a floating ``x``, as tensors
    of ``x``'s dtype: ``sum``: (not reached,); ``mean``: (1/count, not reached);
    ``amax``/``amin``: (share of self, 1/ties, src hit); ``prod``: (not reached,
    src == 0 (bool), src is the only zero at its place).

    Examples
    --------
    >>> callable(scatter_reduce_weights)
    True
    """
    sfx = _SRW_TYPES.get(x.dtype.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive 'scatter_reduce_weights' "
                                  f"for dtype {x.dtype} (float32 and float64 here)")
    device = x.device
    dtype, shape, ishape = x.dtype, tuple(x.shape), tuple(index.shape)
    xc = c.contiguous(c.along(x))
    idx = c.along(c.on(index, device))
    xshape, pshape = tuple(xc.shape), tuple(idx.shape)
    n, m = xc.numel(), idx.numel()
    count = c.zeros(xshape, _dt.int64, device)
    hits = c.zeros(xshape, _dt.int64, device)
    w0, w1 = c.empty(xshape, dtype, device), c.empty(xshape, dtype, device)
    hit_out = c.empty(pshape, dtype, device)
    zero_out = c.empty(pshape, _dt.bool_, device)
    mode = {"amax": 1, "amin": 1, "prod": 2}.get(reduce, 0)
    needs_src = reduce in ("amax", "amin", "prod")
    srcv = c.along(c.on(src, device)) if needs_src else xc
    res = c.contiguous(c.along(c.on(result, device))) if reduce in ("amax", "amin") else xc
    offs = c.offsets([(idx, xshape[dim], xc.stride(dim))], pshape, device)
    dst = list(xc.stride())
    dst[dim] = 0
    geo = c._k.geometry(pshape, dst, srcv.stride() if needs_src else ())
    c.launch(device, f"cg_srw_scatter_{sfx}", m,
             (m, geo, mode, offs.data_ptr(), srcv.data_ptr(), res.data_ptr(), count.data_ptr(),
              hits.data_ptr(), hit_out.data_ptr(), zero_out.data_ptr()))
    fmode = {"mean": 1, "amax": 2, "amin": 2}.get(reduce, 0)
    c.launch(device, f"cg_srw_finish_{sfx}", n,
             (n, fmode, xc.data_ptr(), res.data_ptr(), count.data_ptr(), hits.data_ptr(),
              int(bool(include_self)), w0.data_ptr(), w1.data_ptr()))
    if reduce == "sum":
        return (w0.reshape(shape),)
    if reduce == "mean":
        return w0.reshape(shape), w1.reshape(shape)
    if reduce in ("amax", "amin"):
        return w0.reshape(shape), w1.reshape(shape), hit_out.reshape(ishape)
    lone = c.empty(pshape, dtype, device)
    c.launch(device, f"cg_srw_lone_{sfx}", m, (m, geo, offs.data_ptr(), zero_out.data_ptr(),
                                               hits.data_ptr(), lone.data_ptr()))
    return w0.reshape(shape), zero_out.reshape(ishape), lone.reshape(ishape)
