"""Random ops under ``vmap``: the ``randomness`` flag ('error', 'different', 'same').

* ``'error'``: any random op inside the vmapped function raises PyTorch's error.
* ``'different'``: each sample draws its own numbers: a factory (``rand(3)``) makes a
  batched tensor with the batch size in front; an op on a batched tensor
  (``dropout``, ``rand_like``, ``bernoulli``) runs once on the whole batch.
* ``'same'``: every sample sees the same numbers: a factory runs as is (unbatched);
  an op on a batched tensor draws for one sample and broadcasts.

Examples
--------
>>> import cygrad
>>> from cygrad.func import vmap
>>> r = vmap(lambda x: x + cygrad.rand(()), randomness="same")(cygrad.zeros(3))
>>> bool((r == r[0]).all())
True
"""
from . import _batched as _b
from ._batched import BatchedTensor, call, dispatch, is_batched_at
from ._rules import pointwise, _leading

_ERROR = ("vmap: called random operation while in randomness error mode. Please either use "
          "the 'same' or 'different' randomness flags on vmap or perform the randomness "
          "operation out of vmap")

_FACTORIES = {"rand", "randn"}
_LIKE = {"rand_like", "randn_like", "randint_like", "bernoulli", "poisson", "normal"}
_DROPOUT = {"dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
            "dropout3d"}
_INPLACE = {"uniform_", "normal_", "bernoulli_", "exponential_", "random_", "cauchy_",
            "log_normal_", "geometric_"}
_OTHER = {"randint", "randperm", "multinomial", "rrelu", "gumbel_softmax"}


def _training(name, args, kwargs):
    p = args[1] if len(args) > 1 else kwargs.get("p", 0.5)
    training = args[2] if len(args) > 2 else kwargs.get("training", True)
    return bool(training) and p != 0


def random_rule(name, level, orig, args, kwargs):
    outer = getattr(_b._tls, "random_level", 0)
    if outer:
        # a call made by this rule on the values of a higher level: that level's flag
        # was applied; lower levels apply their own
        if not level:
            return orig(*args, **kwargs)
        return _at_level(name, level, orig, args, kwargs)
    levels = _b._levels()
    top = levels[-1][0]
    if name in _DROPOUT and not _training(name, args, kwargs):
        if not level:
            return orig(*args, **kwargs)
        return (_leading(int(name[-2])) if name[-2].isdigit() else pointwise)(
            name, level, orig, args, kwargs)
    if level < top:
        # this op is not batched at the innermost vmap: that vmap's flag decides
        rnd = _b.level_randomness(top)
        if rnd == "error":
            raise RuntimeError(_ERROR)
        if rnd == "same":
            if not level:
                return orig(*args, **kwargs)
        elif not level and name in _FACTORIES:
            return _batched_factory(name, orig, args, kwargs, top)
        elif level and (name in _LIKE or name in _DROPOUT):
            # make the argument batched at the innermost level, then draw per sample
            x = args[0]
            xb = BatchedTensor(call("expand", call("unsqueeze", x, 0),
                                    (_b.level_size(top),) + tuple(x.shape)), top)
            return dispatch(name, orig, (xb,) + tuple(args[1:]), kwargs)
        else:
            raise RuntimeError(f"vmap: randomness='different' is not supported for {name} "
                               f"on unbatched inputs; draw outside vmap, or use "
                               f"randomness='same'.")
        if not level:
            return orig(*args, **kwargs)
    return _at_level(name, level, orig, args, kwargs)


def _at_level(name, level, orig, args, kwargs):
    prev = getattr(_b._tls, "random_level", 0)
    _b._tls.random_level = level
    try:
        return _apply(name, level, orig, args, kwargs)
    finally:
        _b._tls.random_level = prev


def _apply(name, level, orig, args, kwargs):
    rnd = _b.level_randomness(level)
    if rnd == "error":
        raise RuntimeError(_ERROR)
    x = args[0] if args else None
    if name in _INPLACE:
        if not is_batched_at(x, level):
            _b.raise_inplace_error()
        if rnd == "same":
            sample = call(name, call("select", x._value, 0, 0), *args[1:], **kwargs)
            call("copy_", x, sample)
            return x
        dispatch(name, orig, (x._value,) + tuple(args[1:]), kwargs)
        return x
    if rnd == "different":
        if name in _LIKE:
            return pointwise(name, level, orig, args, kwargs)
        if name in _DROPOUT:
            if kwargs.get("inplace") or (len(args) > 3 and args[3]):
                return pointwise(name + "_", level, orig, args, kwargs)
            return (_leading(int(name[-2])) if name[-2].isdigit() else pointwise)(
                name, level, orig, args, kwargs)
        return _b.fallback(name, orig, level, args, kwargs)
    # same: draw for one sample, broadcast to all
    if not is_batched_at(x, level):
        return NotImplemented
    sample = call("select", x._value, 0, 0)
    if name in ("rand_like", "randn_like", "randint_like"):
        return dispatch(name, orig, (sample,) + tuple(args[1:]), kwargs)
    if name in _DROPOUT and not kwargs.get("inplace"):
        mask = dispatch(name, orig, (call("ones_like", sample),) + tuple(args[1:]), kwargs)
        return call("mul", x, mask)
    if name == "bernoulli" and len(args) == 1:
        u = call("rand_like", sample)
        return call("to", call("lt", u, x), x.dtype)
    raise RuntimeError(f"vmap: randomness='same' is not supported for {name} on a batched "
                       f"tensor.")


def _batched_factory(name, orig, args, kwargs, level):
    size = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if "size" in kwargs:
        size = kwargs.pop("size")
    out = orig((_b.level_size(level),) + tuple(size), **kwargs)
    return BatchedTensor(out, level)


for _name in _FACTORIES | _LIKE | _DROPOUT | _INPLACE | _OTHER:
    _b._RANDOM[_name] = random_rule
