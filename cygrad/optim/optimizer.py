"""The :class:`Optimizer` base class: parameter groups, per-parameter state, state dicts.

An optimizer owns a list of *parameter groups* (dicts holding ``'params'`` and the
hyper-parameters for those parameters) and a ``state`` mapping each parameter to
a dict of running buffers. A subclass writes one method, :meth:`Optimizer._update`,
which updates one parameter in place from its gradient; the base class runs the
closure, loops over the parameters that have a gradient under ``no_grad`` and
calls it.

The state dict format is PyTorch's: parameters are replaced by integer ids in
the order they appear across the groups, ``'state'`` maps ids to the buffers and
``'param_groups'`` holds the hyper-parameters with ``'params'`` as id lists.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import SGD
>>> w = cygrad.tensor([1.0, -2.0], requires_grad=True)
>>> opt = SGD([w], lr=0.1, momentum=0.9)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w.tolist()
[0.800000011920929, -1.600000023841858]
>>> sorted(opt.state_dict()["state"][0])
['momentum_buffer']
"""
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from .._grads import zero_grads
from .._tensor import Tensor
from .._core.dtype import float32, float64, get_default_dtype
from ..ops.creation import tensor, zeros_like
from ..autograd import no_grad, enable_grad

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter that every parameter group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    cls = type(obj)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _scalar(x):
    """A hyper-parameter as a Python number (PyTorch also accepts 1-element tensors)."""
    return x.item() if isinstance(x, Tensor) else x


def _scalar_state_dtype():
    # PyTorch keeps step counters in float32 unless the default dtype is float64;
    # NAdam's mu_product lives in this dtype too, so it changes the trajectory.
    return float64 if get_default_dtype() == float64 else float32


def _advance(state):
    """Count one more step; the new count as a Python float."""
    return state["step"].add_(1).item()


def _check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_nonneg(value, what):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what}: {value}")


def _check_betas(betas):
    for i, b in enumerate(betas[:2]):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


# cygrad.Tensor has no addcmul_/addcdiv_ yet; these compose them from one
# temporary and add_, in the order PyTorch evaluates them (value * (a op b)).
def _addcmul_(t, a, b, value=1.0):
    return t.add_(a * b, alpha=value)


def _addcdiv_(t, a, b, value=1.0):
    return t.add_(a / b, alpha=value)


class Optimizer:
    """Base class of all optimizers.

    Parameters
    ----------
    params : iterable
        Tensors, ``(name, tensor)`` pairs, or dicts defining parameter groups
        (each with a ``'params'`` entry and optional per-group hyper-parameters).
    defaults : dict
        Default hyper-parameters, used where a group does not give its own.

    Notes
    -----
    Subclasses implement ``_update(p, grad, group)``, which updates one
    parameter in place; it is called under ``no_grad`` for every parameter
    whose ``.grad`` is not None. ``self.state[p]`` holds its buffers.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import Optimizer
    >>> class SignDescent(Optimizer):
    ...     def __init__(self, params, lr=0.1):
    ...         super().__init__(params, dict(lr=lr))
    ...     def _update(self, p, grad, group):
    ...         p.add_(grad.sign(), alpha=-group["lr"])
    >>> w = cygrad.tensor([3.0, -1.0], requires_grad=True)
    >>> opt = SignDescent([w])
    >>> w.sum().backward(); opt.step()
    >>> w.tolist()
    [2.9000000953674316, -1.100000023841858]
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable "
                            "of Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyper-parameters.

        Parameters
        ----------
        param_group : dict
            ``{'params': tensors, **hyper_parameters}``; missing hyper-parameters
            take the optimizer's defaults.

        Raises
        ------
        TypeError
            If ``param_group`` is not a dict, its params are a set, or one is not a Tensor.
        ValueError
            If a parameter is a non-leaf tensor, a required hyper-parameter is
            missing, or a parameter is already in another group.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad.optim import SGD
        >>> a, b = cygrad.zeros(2, requires_grad=True), cygrad.zeros(3, requires_grad=True)
        >>> opt = SGD([a], lr=0.1)
        >>> opt.add_param_group({"params": b, "lr": 0.01})
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.01]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. "
                                 "Some param names are missing")
            param_group["param_names"] = names
        for p in tensors:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors.

        Parameters
        ----------
        set_to_none : bool, default True
            Set ``.grad`` to None (optimizers skip such parameters) instead of
            filling it with zeros.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad.optim import SGD
        >>> w = cygrad.ones(2, requires_grad=True)
        >>> opt = SGD([w], lr=0.1)
        >>> w.sum().backward()
        >>> opt.zero_grad(set_to_none=False); w.grad.tolist()
        [0.0, 0.0]
        >>> opt.zero_grad(); w.grad is None
        True
        """
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Perform one optimization step.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; run with gradients
            enabled before the update.

        Returns
        -------
        The closure's loss, or None.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad.optim import SGD
        >>> w = cygrad.tensor([2.0], requires_grad=True)
        >>> opt = SGD([w], lr=0.25)
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure).item(), w.item()
        (4.0, 1.0)
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._step_group(group)
        return loss

    def _step_group(self, group):
        """Update the parameters of one group (called under ``no_grad``): those
        :meth:`_fused_step` leaves go through ``_update`` one by one."""
        for p in self._fused_step(group):
            if p.grad is not None:
                self._update(p, p.grad, group)

    def _fused_step(self, group):
        """Update in one call the parameters of ``group`` that a fused kernel takes
        and return the others; this default fuses nothing. SGD, Adam and AdamW
        override it (``cygrad/optim/_fused.py``)."""
        return group["params"]

    def _update(self, p, grad, group):
        raise NotImplementedError

    def _lazy_state(self, p, buffers, scalars=()):
        """``self.state[p]``, made on the parameter's first step: a step counter,
        the named 0-d ``scalars`` (name, value) and zero-filled ``buffers``, in
        PyTorch's key order."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = tensor(0.0, dtype=_scalar_state_dtype())
            for name, value in scalars:
                state[name] = tensor(value, dtype=_scalar_state_dtype())
            for name in buffers:
                state[name] = zeros_like(p)
        return state

    def state_dict(self):
        """The optimizer's state as a dict, in PyTorch's format.

        Returns
        -------
        dict
            ``{'state': {param_id: {...}}, 'param_groups': [{..., 'params': [ids]}]}``.
            Parameter ids number the parameters in group order. The buffers are
            the live tensors (not copies), as in PyTorch: save or deep-copy the
            dict to keep a snapshot.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad.optim import Adam
        >>> w = cygrad.zeros(3, requires_grad=True)
        >>> opt = Adam([w], lr=0.01)
        >>> w.sum().backward(); opt.step()
        >>> sd = opt.state_dict()
        >>> sorted(sd["state"][0]), sd["param_groups"][0]["params"]
        (['exp_avg', 'exp_avg_sq', 'step'], [0])
        """
        mapping = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load a state produced by :meth:`state_dict`.

        Hyper-parameters come from the loaded groups; buffers are cast to their
        parameter's dtype when the parameter is floating point (``'step'`` is
        kept as saved). Nothing changes if the groups do not match.

        Parameters
        ----------
        state_dict : dict

        Raises
        ------
        ValueError
            If the number of groups or the size of a group differs.

        Examples
        --------
        >>> import cygrad, copy
        >>> from cygrad.optim import SGD
        >>> w = cygrad.ones(2, requires_grad=True)
        >>> opt = SGD([w], lr=0.1, momentum=0.9)
        >>> w.sum().backward(); opt.step()
        >>> snapshot = copy.deepcopy(opt.state_dict())
        >>> opt2 = SGD([w], lr=0.5)
        >>> opt2.load_state_dict(snapshot)
        >>> opt2.param_groups[0]["lr"], opt2.state[w]["momentum_buffer"].tolist()
        (0.1, [1.0, 1.0])
        """
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't "
                             "match the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        # As in PyTorch, a fused group keeps 'step' in float32 whatever was saved.
        fused_ids = {i for g in saved_groups if g.get("fused") for i in g["params"]}
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast_state(param, v, fused_step=k in fused_ids)
            else:
                state[k] = v
        for group, new in zip(groups, saved_groups):
            new["params"] = group["params"]
            if "param_names" in group and "param_names" not in new:
                new["param_names"] = group["param_names"]
        self.__setstate__({"state": state, "param_groups": saved_groups})


def _cast_state(param, value, key=None, fused_step=False):
    """Buffers follow the parameter's dtype; containers are rebuilt around them."""
    if isinstance(value, Tensor):
        if key == "step":
            return value.to(dtype=float32) if fused_step else value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k, fused_step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v) for v in value)
    return value
