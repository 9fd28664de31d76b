"""Helpers shared by the autograd test files of the op families (float64 leaves in
several memory layouts, torch copies, and the jvp-vs-finite-differences check)."""
import numpy as np

import cygrad

try:
    import torch
except ImportError:        # the helpers that need torch are only called by torch tests
    torch = None


def leaf(rng, *shape, layout="contig", dtype=np.float64):
    """A leaf that requires grad: contiguous, ``T`` (transposed last two dims),
    ``strided`` (every other element along the last dim) or ``neg`` (reversed dim 0)."""
    values = rng.standard_normal(shape).astype(dtype)
    if layout == "contig" or len(shape) == 0:
        t = cygrad.from_numpy(values.copy())
    elif layout == "T" and len(shape) >= 2:
        t = cygrad.from_numpy(np.ascontiguousarray(np.swapaxes(values, -1, -2))).mT
    elif layout in ("strided", "T"):
        big = np.zeros(shape[:-1] + (2 * shape[-1],), dtype=dtype)
        big[..., ::2] = values
        t = cygrad.from_numpy(big)[..., ::2]
    elif layout == "neg":
        t = cygrad.from_numpy(values[::-1].copy())[::-1]
    else:
        raise ValueError(layout)
    np.testing.assert_array_equal(t.numpy(), values)
    return t.detach().requires_grad_(True)


def torch_copy(t):
    return torch.tensor(np.array(t.detach().numpy()), requires_grad=True)


def run_jvp(cls, args, tangents):
    """``cls.forward`` then ``cls.jvp`` on a fresh ctx: what forward-mode AD does for
    one op, called directly so the formula itself is under test."""
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(a, cygrad.Tensor) for a in args)
    with cygrad.no_grad():
        out = cls.forward(ctx, *args)
        tangent = cls.jvp(ctx, *tangents)
    # forward mode expands a tangent that broadcasts to the output's shape
    return out, tangent.expand(tuple(out.shape))


def check_jvp(rng, fn, cls, make_args, shapes, which=None):
    """The jvp of ``cls`` (called as ``cls.forward(ctx, *make_args(*tensors))``) equals
    the central difference of ``fn`` along the tangents, and ``<u, J v>`` equals
    ``sum_i <(J^T u)_i, v_i>`` from reverse mode through ``fn``."""
    xs = [cygrad.from_numpy(rng.standard_normal(s)) for s in shapes]
    which = range(len(xs)) if which is None else which
    vs = [cygrad.from_numpy(rng.standard_normal(s)) if i in which else None
          for i, s in enumerate(shapes)]
    args = make_args(*xs)
    tan_args = make_args(*vs)
    tangents = [t if isinstance(a, cygrad.Tensor) else None for a, t in zip(args, tan_args)]
    out, jv = run_jvp(cls, args, tangents)
    np.testing.assert_allclose(out.numpy(), fn(*xs).numpy(), rtol=1e-12, atol=1e-12)
    h = 1e-6
    plus = fn(*[x + h * v if v is not None else x for x, v in zip(xs, vs)])
    minus = fn(*[x - h * v if v is not None else x for x, v in zip(xs, vs)])
    np.testing.assert_allclose(jv.numpy(), ((plus - minus) / (2 * h)).numpy(), rtol=1e-6,
                               atol=1e-7)
    leaves = [x.requires_grad_(True) for x in xs]
    u = rng.standard_normal(tuple(out.shape))
    grads = cygrad.autograd.grad(fn(*leaves), leaves, cygrad.from_numpy(u), allow_unused=True)
    reverse = sum(float((g.detach() * v).sum()) for g, v in zip(grads, vs)
                  if v is not None and g is not None)
    assert np.isclose(float((jv * cygrad.from_numpy(u)).sum()), reverse, rtol=1e-10, atol=1e-10)


def _forward_ad_supported():
    from cygrad._core import tensor as _C
    return hasattr(_C, "_set_fw_grad_enabled")
