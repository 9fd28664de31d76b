"""Top-level function forms of in-place Tensor methods (``cygrad.exp_(x)`` is
``x.exp_()``), as PyTorch has them, generated from one list.

A name is generated only when ``cygrad.Tensor`` has the method, so this module is
imported after every family has registered its methods (last in
``cygrad/__init__.py``).

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([0.0, 4.0])
>>> cygrad.sqrt_(x) is x, x.tolist()
(True, [0.0, 2.0])
"""
from .._core.tensor import TensorBase
from .._tensor import Tensor
from ._argcheck import not_tensor

# PyTorch's top-level in-place functions (torch.X_) that are Tensor methods here or
# may become ones; with the arguments of each one's docstring example.
_NAMES = ("abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
          "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
          "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_",
          "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "gcd_", "i0_", "lcm_", "ldexp_",
          "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_",
          "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_",
          "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "addmv_",
          "index_put_", "threshold_", "selu_", "celu_", "rrelu_")
_EXAMPLE_ARGS = {"clamp_": "min=0.5", "clip_": "min=0.5", "clamp_max_": "0.5", "clamp_min_": "0.5",
                 "gcd_": "x", "lcm_": "x", "ldexp_": "x", "xlogy_": "x",
                 "threshold_": "0.1, 0.0", "addmv_": "cygrad.ones(1, 1), cygrad.ones(1)",
                 "index_put_": "(cygrad.tensor([0]),), cygrad.tensor([2.0])"}
_INT_EXAMPLE = {"gcd_", "lcm_"}

_DOC = """``input.{name}(...)``: the in-place ``{base}``, returning ``input``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([{value}])
    >>> cygrad.{name}(x{args}) is x
    True
    """


def _make(name):
    def fn(input, *args, **kwargs):
        if not isinstance(input, TensorBase):
            raise not_tensor(input, name)
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    args = _EXAMPLE_ARGS.get(name)
    fn.__doc__ = _DOC.format(name=name, base=name[:-1], args=f", {args}" if args else "",
                             value="6" if name in _INT_EXAMPLE else "0.5")
    return fn


__all__ = [n for n in _NAMES if hasattr(Tensor, n)]
for _name in __all__:
    globals()[_name] = _make(_name)
