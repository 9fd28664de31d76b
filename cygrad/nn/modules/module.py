"""``Module``: the base class of every layer and model, as ``torch.nn.Module``.

A module keeps three ordered registries in its ``__dict__``: ``_parameters``,
``_buffers`` and ``_modules``. ``__setattr__`` routes assignments into them
(a ``Parameter`` becomes a parameter, a ``Module`` a child, and a tensor assigned
to an existing buffer name replaces that buffer), and ``__getattr__`` looks names
up there, so ``self.weight`` reads like a plain attribute. Every recursive
operation (``named_parameters``, ``state_dict``, ``train``, ``to``...) walks
``_modules``.
"""
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._core.dtype import dtype as DType
from ..._grads import zero_grads
from ..._device import device as Device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter, _buffer_persistent
from ._backward_hook import BackwardHook
from ._hooks import RemovableHandle

__all__ = ["Module"]


def _typename(obj):
    """The name PyTorch's messages give an object's type (``cygrad.FloatTensor``,
    ``int``, ``mypkg.MyModule``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None)
    if qualname is None:
        qualname = getattr(obj, "__name__", None)
    if qualname is None:
        qualname = type(obj).__qualname__
        module = type(obj).__module__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"


def _addindent(text, spaces):
    """Indent every line of ``text`` but the first (a child's repr inside its parent's)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it found missing or unexpected."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _parse_to(args, kwargs):
    """(device, dtype, non_blocking) from ``Module.to``'s overloads: ``to(device)``,
    ``to(dtype)``, ``to(tensor)``, ``to(device, dtype)`` and the keywords."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: unexpected "
                        f"keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        like = rest.pop(0)
        device, dtype = like.device, like.dtype
    elif rest and not isinstance(rest[0], DType):
        device = rest.pop(0)
    if rest and isinstance(rest[0], DType):
        dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError(f"to() received an invalid combination of arguments: got {args!r}")
    if device is not None:
        device = Device(device)
    return device, dtype, non_blocking


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                              f'"forward" function')


class Module:
    """Base class for all neural-network modules, as ``torch.nn.Module``.

    Subclass it, create sub-modules and parameters in ``__init__`` (after calling
    ``super().__init__()``) and define ``forward``; call the module, not
    ``forward``, so that hooks run.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> class TwoLayer(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = nn.Linear(3, 4)
    ...         self.out = nn.Linear(4, 1)
    ...     def forward(self, x):
    ...         return self.out(self.hidden(x).relu())
    >>> model = TwoLayer()
    >>> [name for name, _ in model.named_parameters()]
    ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    >>> model(cygrad.ones(2, 3)).shape
    cygrad.Size([2, 1])
    >>> model
    TwoLayer(
      (hidden): Linear(in_features=3, out_features=4, bias=True)
      (out): Linear(in_features=4, out_features=1, bias=True)
    )
    """

    dump_patches = False
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if not self.call_super_init and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        # Written through object.__setattr__: our __setattr__ reads these registries.
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_backward_pre_hooks", OrderedDict())
        setattr_("_backward_hooks", OrderedDict())
        setattr_("_forward_hooks", OrderedDict())
        setattr_("_forward_hooks_with_kwargs", OrderedDict())
        setattr_("_forward_hooks_always_called", OrderedDict())
        setattr_("_forward_pre_hooks", OrderedDict())
        setattr_("_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------------ registration

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (e.g. running statistics).

        Buffers follow the module in ``to()``/``float()``..., and appear in
        ``state_dict()`` unless ``persistent=False``.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Module()
        >>> m.register_buffer("steps", cygrad.zeros(1))
        >>> m.register_buffer("cache", cygrad.zeros(2), persistent=False)
        >>> list(m.state_dict())
        ['steps']
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            f"(cygrad Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (or ``None``, a declared but absent one) under ``name``.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Module()
        >>> m.register_parameter("scale", nn.Parameter(cygrad.ones(1)))
        >>> m.register_parameter("shift", None)
        >>> [n for n, _ in m.named_parameters()]
        ['scale']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"(cygrad.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as a "
                             f"function of another Tensor, compute the value in the forward() "
                             f"method.")
        self._parameters[name] = param

    def add_module(self, name, module):
        """Add a child module (or ``None``) under ``name``.

        Examples
        --------
        >>> from cygrad import nn
        >>> m = nn.Module()
        >>> m.add_module("proj", nn.Linear(2, 2))
        >>> m.proj
        Linear(in_features=2, out_features=2, bias=True)
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The sub-module at the dotted path ``target`` (``""`` is ``self``).

        Examples
        --------
        >>> from cygrad import nn
        >>> net = nn.Sequential(nn.Sequential(nn.Linear(1, 2)))
        >>> net.get_submodule("0.0")
        Linear(in_features=1, out_features=2, bias=True)
        """
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path ``target`` (``"layer.weight"``).

        Examples
        --------
        >>> from cygrad import nn
        >>> nn.Sequential(nn.Linear(2, 3)).get_parameter("0.bias").shape
        cygrad.Size([3])
        """
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{param_name}`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{param_name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Sequential(nn.Module())
        >>> m[0].register_buffer("count", cygrad.zeros(1))
        >>> m.get_buffer("0.count").tolist()
        [0.0]
        """
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{buffer_name}`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError(f"`{buffer_name}` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Extra state to put in ``state_dict`` (override together with
        :meth:`set_extra_state`)."""
        raise RuntimeError("Module.get_extra_state() was called but not overridden; override "
                           "it together with set_extra_state() to save extra state.")

    def set_extra_state(self, state):
        """Restore what :meth:`get_extra_state` returned (override both)."""
        raise RuntimeError("Module.set_extra_state() was called but not overridden; override "
                           "it together with get_extra_state() to load extra state.")

    # ------------------------------------------------------------------ conversion

    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's values with ``fn(tensor)``.

        Parameters keep their identity (their ``.data`` is replaced, as in PyTorch),
        so an optimizer built before ``model.to(...)`` still holds them.
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param.data = param_applied
            if param.grad is not None:
                with no_grad():
                    grad_applied = fn(param.grad)
                param.grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Call ``fn`` on every sub-module (children first), then on ``self``.

        Examples
        --------
        >>> from cygrad import nn
        >>> net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
        >>> def init(m):
        ...     if isinstance(m, nn.Linear):
        ...         nn.init.zeros_(m.bias)
        >>> net.apply(init)[1].bias.tolist()
        [0.0]
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``,
        ``to(tensor)``, ``to(device, dtype)``. Only floating-point tensors change dtype.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> nn.Linear(2, 2).to(cygrad.float64).weight.dtype
        cygrad.float64
        """
        device, dtype, non_blocking = _parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        def convert(t):
            differentiable = t.is_floating_point() or t.is_complex()
            return t.to(device=device, dtype=dtype if differentiable else None,
                        non_blocking=non_blocking)

        return self._apply(convert)

    def cpu(self):
        """Move parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Move parameters and buffers to a CUDA device."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Cast floating-point parameters and buffers to float32.

        Examples
        --------
        >>> from cygrad import nn
        >>> nn.Linear(1, 1).double().float().weight.dtype
        cygrad.float32
        """
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def share_memory(self):
        """Move parameters and buffers to shared memory (``Tensor.share_memory_``)."""
        if not hasattr(Tensor, "share_memory_"):
            raise NotImplementedError(
                "Module.share_memory() needs Tensor.share_memory_(), which cygrad does not "
                "provide yet (shared-memory storage comes with cygrad.multiprocessing)")
        return self._apply(lambda t: t.share_memory_())

    # ------------------------------------------------------------------ hooks

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Call ``hook(module, args)`` before each forward; a non-None result replaces
        ``args`` (a non-tuple is wrapped in one). With ``with_kwargs=True`` the hook
        is ``hook(module, args, kwargs)`` and returns ``(args, kwargs)`` or None.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Identity()
        >>> h = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        >>> m(cygrad.ones(1)).tolist()
        [2.0]
        >>> h.remove()
        >>> m(cygrad.ones(1)).tolist()
        [1.0]
        """
        handle = RemovableHandle(self._forward_pre_hooks,
                                 extra_dict=self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Call ``hook(module, args, output)`` after each forward; a non-None result
        replaces the output. ``with_kwargs=True``: ``hook(module, args, kwargs,
        output)``. ``always_call=True``: also called when forward raises.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Identity()
        >>> seen = []
        >>> h = m.register_forward_hook(lambda mod, args, out: seen.append(out.tolist()))
        >>> _ = m(cygrad.zeros(2))
        >>> seen
        [[0.0, 0.0]]
        """
        handle = RemovableHandle(self._forward_hooks,
                                 extra_dict=[self._forward_hooks_with_kwargs,
                                             self._forward_hooks_always_called])
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_output)`` when the gradients w.r.t. the module's
        outputs are computed; a non-None result replaces ``grad_output``.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Identity()
        >>> h = m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
        >>> x = cygrad.ones(2, requires_grad=True)
        >>> m(x).sum().backward()
        >>> x.grad.tolist()
        [10.0, 10.0]
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """Call ``hook(module, grad_input, grad_output)`` when the gradients w.r.t.
        the module's positional tensor inputs are computed; a non-None result
        replaces ``grad_input``. Inputs and outputs pass through an identity
        autograd Function that calls the hooks from its backward.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> lin = nn.Linear(2, 1, bias=False)
        >>> grads = []
        >>> h = lin.register_full_backward_hook(lambda m, gi, go: grads.append(gi[0].shape))
        >>> lin(cygrad.ones(3, 2, requires_grad=True)).sum().backward()
        >>> grads
        [cygrad.Size([3, 2])]
        """
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _call_impl(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        called_always = set()
        result = None
        try:
            for hook_id, hook in list(self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if not (isinstance(res, tuple) and len(res) == 2):
                            raise RuntimeError(f"forward pre-hook must return None or a tuple "
                                               f"of (new_args, new_kwargs), but got {res}.")
                        args, kwargs = res
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            if self._backward_hooks or self._backward_pre_hooks:
                bw_hook = BackwardHook(self, list(self._backward_hooks.values()),
                                       list(self._backward_pre_hooks.values()))
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called:
                    called_always.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw_hook is not None:
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called_always:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, result)
                        else:
                            hook(self, args, result)
                    except Exception as e:
                        warnings.warn("module forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was raised "
                                      f"in forward: {e}")
            raise

    __call__ = _call_impl

    # ------------------------------------------------------------------ attributes

    def __getattr__(self, name):
        # Only reached when normal lookup fails: look in the registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            members = d.get(registry)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(cygrad.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers,
                        self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"(cygrad.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                f"(cygrad.nn.Buffer, cygrad.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = _buffer_persistent(value)
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters)
                + list(self._modules) + list(self._buffers))
        # Names that start with a digit are container indices, not attributes.
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state):
        self.__dict__.update(state)

    # ------------------------------------------------------------------ state dict

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + "_extra_state"] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered dict of every parameter and persistent buffer, keyed by dotted
        path; values are detached tensors sharing memory with the module's
        (``keep_vars=True`` keeps the parameters themselves).

        Examples
        --------
        >>> from cygrad import nn
        >>> list(nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)).state_dict())
        ['0.weight', '0.bias', '1.weight', '1.bias']
        """
        if args:
            # The old positional form state_dict(destination, prefix, keep_vars).
            warnings.warn("Positional args are being deprecated, use kwargs instead.",
                          FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(),
                                                          persistent.items()) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  f'cygrad.Tensor or Tensor-like object from checkpoint but '
                                  f'received {type(input_param)}')
                continue
            # Checkpoints from before 0-d tensors stored scalars as shape [1].
            if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{input_param.shape} from checkpoint, the shape in current "
                                  f"model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            if isinstance(input_param, Parameter):
                                input_param.requires_grad_(param.requires_grad)
                            else:
                                input_param = Parameter(input_param, param.requires_grad)
                        setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions '
                                  f'in the model are {param.size()} and whose dimensions in the '
                                  f'checkpoint are {input_param.size()}, an exception occurred '
                                  f': {ex.args}.')
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    first = key[len(prefix):].split(".", 1)[0]
                    if first not in self._modules and first not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module.

        With ``strict=True`` every key must match (missing or unexpected keys
        raise ``RuntimeError``); otherwise they are returned. Shape mismatches
        always raise. ``assign=True`` makes the module hold the given tensors
        instead of copying into its own.

        Returns
        -------
        _IncompatibleKeys
            ``(missing_keys, unexpected_keys)``.

        Examples
        --------
        >>> from cygrad import nn
        >>> a, b = nn.Linear(2, 2), nn.Linear(2, 2)
        >>> a.load_state_dict(b.state_dict())
        <All keys matched successfully>
        >>> bool((a.weight == b.weight).all())
        True
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {k: v for k, v in local_state_dict.items()
                                   if k.startswith(child_prefix)}
                    load(child, child_state, child_prefix)

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ traversal

    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        """Iterate over parameters (each shared one once); see :meth:`named_parameters`.

        Examples
        --------
        >>> from cygrad import nn
        >>> [tuple(p.shape) for p in nn.Linear(3, 2).parameters()]
        [(2, 3), (2,)]
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterate over ``(dotted name, parameter)``: own parameters in registration
        order, then each child's, depth first. A parameter shared by several modules
        comes once unless ``remove_duplicate=False``.

        Examples
        --------
        >>> from cygrad import nn
        >>> [n for n, _ in nn.Sequential(nn.Linear(1, 1)).named_parameters(prefix="net")]
        ['net.0.weight', 'net.0.bias']
        """
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix,
                                   recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """Iterate over buffers; see :meth:`named_buffers`.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Module()
        >>> m.register_buffer("b", cygrad.zeros(2))
        >>> [b.tolist() for b in m.buffers()]
        [[0.0, 0.0]]
        """
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """Iterate over ``(dotted name, buffer)``, in the order of :meth:`named_parameters`.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> m = nn.Sequential(nn.Module())
        >>> m[0].register_buffer("b", cygrad.zeros(2))
        >>> [n for n, _ in m.named_buffers()]
        ['0.b']
        """
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix,
                                   recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        """Iterate over the direct child modules.

        Examples
        --------
        >>> from cygrad import nn
        >>> len(list(nn.Sequential(nn.Identity(), nn.Identity()).children()))
        2
        """
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """Iterate over ``(name, child)`` for direct children (each once).

        Examples
        --------
        >>> from cygrad import nn
        >>> [n for n, _ in nn.Sequential(nn.Identity(), nn.Identity()).named_children()]
        ['0', '1']
        """
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        """Iterate over this module and all sub-modules (each once), depth first.

        Examples
        --------
        >>> from cygrad import nn
        >>> lin = nn.Linear(1, 1)
        >>> [type(m).__name__ for m in nn.Sequential(lin, lin).modules()]
        ['Sequential', 'Linear']
        """
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """Iterate over ``(dotted name, module)`` for this module (name ``prefix``) and
        every sub-module, depth first; a shared module comes once unless
        ``remove_duplicate=False``.

        Examples
        --------
        >>> from cygrad import nn
        >>> [n for n, _ in nn.Sequential(nn.Sequential(nn.Identity())).named_modules()]
        ['', '0', '0.0']
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # ------------------------------------------------------------------ modes and grads

    def train(self, mode=True):
        """Set training mode (``self.training``) here and in every sub-module.

        Examples
        --------
        >>> from cygrad import nn
        >>> net = nn.Sequential(nn.Linear(1, 1))
        >>> net.train(False)[0].training
        False
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Set evaluation mode: ``train(False)``.

        Examples
        --------
        >>> from cygrad import nn
        >>> nn.Linear(1, 1).eval().training
        False
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` on every parameter (e.g. to freeze a sub-network).

        Examples
        --------
        >>> from cygrad import nn
        >>> [p.requires_grad for p in nn.Linear(1, 1).requires_grad_(False).parameters()]
        [False, False]
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to ``None`` (default) or to zeros.

        Examples
        --------
        >>> import cygrad
        >>> from cygrad import nn
        >>> lin = nn.Linear(2, 1)
        >>> lin(cygrad.ones(1, 2)).sum().backward()
        >>> lin.zero_grad()
        >>> lin.weight.grad is None
        True
        """
        zero_grads(self.parameters(), set_to_none)

    # ------------------------------------------------------------------ printing

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside this module's repr before its children (override it).

        Examples
        --------
        >>> from cygrad import nn
        >>> nn.Linear(2, 3).extra_repr()
        'in_features=2, out_features=3, bias=True'
        """
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

