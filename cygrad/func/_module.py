"""Modules as functions of their parameters: ``functional_call``, ``stack_module_state``."""
import contextlib

from ._batched import BatchedTensor

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_",
           "functionalize", "debug_unwrap"]


def _merge(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    if not isinstance(dicts, (tuple, list)) or not all(isinstance(d, dict) for d in dicts):
        raise ValueError(f"Expected all elements of parameter_and_buffer_dicts to be "
                         f"dictionaries, got {type(dicts)}")
    seen, merged, dup = set(), {}, []
    for d in dicts:
        for k, v in d.items():
            if k in seen:
                dup.append(k)
            seen.add(k)
            merged[k] = v
    if dup:
        raise ValueError(f"{sorted(set(dup))} appeared in multiple dictionaries; behavior of "
                         f"functional call is ambiguous")
    return merged


def _owner(module, name):
    *path, attr = name.split(".")
    sub = module
    for p in path:
        sub = getattr(sub, p)
    return sub, attr


def _tied_names(module):
    """name -> every name of the same tensor object (tied weights), for params and buffers."""
    groups = {}
    for n, t in list(module.named_parameters(remove_duplicate=False)) + \
            list(module.named_buffers(remove_duplicate=False)):
        groups.setdefault(id(t), []).append(n)
    return {n: names for names in groups.values() if len(names) > 1 for n in names}


@contextlib.contextmanager
def _reparametrize(module, values, tie_weights, strict):
    expected = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
               {n for n, _ in module.named_buffers(remove_duplicate=False)}
    values = dict(values)
    if tie_weights:
        for name, names in _tied_names(module).items():
            given = [n for n in names if n in values]
            if given:
                first = values[given[0]]
                for n in given[1:]:
                    if values[n] is not first:
                        raise ValueError(f"functional_call got multiple values for keys "
                                         f"{sorted(given)}, which are tied. Consider using "
                                         f"tie_weights=False")
                values.setdefault(name, first)
    if strict:
        unexpected = sorted(set(values) - expected)
        missing = sorted(expected - set(values))
        if unexpected or missing:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + "."
            raise RuntimeError(msg)
    saved = []
    try:
        for name, value in values.items():
            sub, attr = _owner(module, name)
            for registry in ("_parameters", "_buffers"):
                reg = sub.__dict__.get(registry)
                if reg is not None and attr in reg:
                    saved.append((reg, attr, reg[attr], True))
                    reg[attr] = value
                    break
            else:
                had = attr in sub.__dict__
                saved.append((sub, attr, sub.__dict__.get(attr), had))
                object.__setattr__(sub, attr, value)
        yield
    finally:
        for target, attr, old, had in reversed(saved):
            if isinstance(target, dict):
                target[attr] = old
            elif had:
                object.__setattr__(target, attr, old)
            else:
                object.__delattr__(target, attr)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors.

    As ``torch.func.functional_call``: the module runs as a function of the tensors in
    ``parameter_and_buffer_dicts`` (names as in ``named_parameters()``); its own
    parameters are put back afterwards. Differentiating the result with ``grad`` or
    batching it with ``vmap`` (over stacked parameters: model ensembling) works.

    Parameters
    ----------
    module : nn.Module
    parameter_and_buffer_dicts : dict or tuple of dicts
        ``{name: tensor}``; names missing here keep the module's own tensors.
    args : tuple or single value, optional
        Positional arguments of ``module``'s forward.
    kwargs : dict, optional
        Keyword arguments of the forward.
    tie_weights : bool
        A value given for one name of a tied parameter is used for all its names.
    strict : bool
        The names must be exactly the module's parameters and buffers.

    Returns
    -------
    Whatever ``module(*args, **kwargs)`` returns.

    Raises
    ------
    ValueError
        A name given in two dictionaries, or different values for tied names.
    RuntimeError
        With ``strict``, for unexpected or missing names.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> from cygrad.func import functional_call
    >>> m = nn.Linear(2, 1)
    >>> params = {"weight": cygrad.ones(1, 2), "bias": cygrad.zeros(1)}
    >>> functional_call(m, params, (cygrad.tensor([1.0, 2.0]),)).tolist()
    [3.0]
    """
    values = _merge(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize(module, values, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def stack_module_state(models):
    """Stack the parameters and buffers of same-shaped models: ``(params, buffers)``.

    As ``torch.func.stack_module_state``: each dict maps a name to the tensors of all
    models stacked along a new dim 0 (copies; parameters are new leaves that require
    grad like the originals). With ``functional_call`` and ``vmap`` this runs an
    ensemble of models in one call.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> from cygrad.func import stack_module_state, functional_call, vmap
    >>> models = [nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = stack_module_state(models)
    >>> params["weight"].shape
    cygrad.Size([4, 2, 3])
    >>> def run(p, b, x):
    ...     return functional_call(models[0], (p, b), (x,))
    >>> vmap(run, in_dims=(0, 0, None))(params, buffers, cygrad.ones(5, 3)).shape
    cygrad.Size([4, 5, 2])
    """
    from .. import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    ref = type(models[0])
    if not all(type(m) is ref for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {}
    for name, p in models[0].named_parameters():
        all_p = [dict(m.named_parameters())[name] for m in models]
        params[name] = stack([q.detach() for q in all_p]).requires_grad_(p.requires_grad)
    buffers = {name: stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Make every batch-norm module of ``root`` stop tracking running statistics.

    As ``torch.func.replace_all_batch_norm_modules_``: ``running_mean``, ``running_var``
    and ``num_batches_tracked`` become None and ``track_running_stats`` False, in
    place, so the modules normalize with the statistics of each batch (what ``vmap``
    over a model with batch norm needs). Returns ``root``.

    Examples
    --------
    >>> from cygrad import nn
    >>> from cygrad.func import replace_all_batch_norm_modules_
    >>> net = replace_all_batch_norm_modules_(nn.Sequential(nn.BatchNorm1d(3)))
    >>> net[0].running_mean is None, net[0].track_running_stats
    (True, False)
    """
    from ..nn.modules.batchnorm import _BatchNorm
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


def functionalize(func, *, remove="mutations"):
    """``func`` itself: cygrad runs eagerly, so there is nothing to rewrite.

    ``torch.func.functionalize`` rewrites in-place ops and views into out-of-place
    ones for graph compilers; its result computes the same values as ``func``. cygrad
    has no compiler, so this returns ``func`` unchanged (after checking ``remove``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import functionalize
    >>> functionalize(lambda x: x.add_(1))(cygrad.zeros(2)).tolist()
    [1.0, 1.0]
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           f"all inplace and out= operators will be removed from the program, "
                           f"and replaced with their out-of-place equivalents.\n     "
                           f"remove='mutations_and_views': In addition to the above, all "
                           f"aliasing operators {{view}} will be replaced with their "
                           f"non-aliasing counterparts, {{view}}_copy.\n")
    return func


def debug_unwrap(tensor, *, recurse=True):
    """The tensor under a :class:`~cygrad.func._batched.BatchedTensor` (for debugging).

    As ``torch.func.debug_unwrap``: the value holding the whole batch (batch dim 0);
    with ``recurse``, through every level of nested ``vmap``. Other objects come back
    unchanged.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import vmap, debug_unwrap
    >>> vmap(lambda r: tuple(debug_unwrap(r).shape), out_dims=None)(cygrad.zeros(4, 2))
    (4, 2)
    """
    while isinstance(tensor, BatchedTensor):
        tensor = tensor._value
        if not recurse:
            break
    return tensor

