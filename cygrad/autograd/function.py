"""``Function``: the base class of every differentiable op, built-in or yours.

Subclass it with two static methods::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()                 # plain tensor code; nothing is recorded in here
            ctx.save_for_backward(y)    # what backward will need
            return y

        @staticmethod
        def backward(ctx, grad_y):
            y, = ctx.saved_tensors
            return grad_y * y           # one gradient per forward input (None if none)

and call it as ``Exp.apply(x)``. ``ctx`` is the graph node itself: each Function gets
a node class named ``<Name>Backward`` that ends up as ``output.grad_fn``.
"""
import functools
import warnings

from .._core import engine as _E
from .._core.tensor import TensorBase

__all__ = ["Function", "FunctionCtx", "once_differentiable", "BackwardCFunction"]

FunctionCtx = _E.FunctionCtx


class BackwardCFunction(_E.FunctionCtx):
    """The ctx/node class of a Python ``Function`` (one subclass per Function)."""

    _forward_cls = None
    # Warn about tensors stored as ctx attributes (checked after a user's forward;
    # cygrad's own ops are known not to do it).
    _check_ctx_attrs = True


class FunctionMeta(type):
    """Gives each Function subclass its own node class, named like PyTorch's."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        node_name = attrs.get("_node_name", name + "Backward")
        builtin = cls.__module__.startswith("cygrad.")
        node_attrs = {"_forward_cls": cls, "_check_ctx_attrs": not builtin}
        # Class attributes a Function lists in ``_ctx_attributes`` are visible on its
        # ctx too (the elementwise ops read their kernel and derivative as ``ctx.op``,
        # ``ctx.derivative``). The raw attribute is copied, so a staticmethod stays one.
        for attr in getattr(cls, "_ctx_attributes", ()):
            for klass in cls.__mro__:
                if attr in klass.__dict__:
                    node_attrs[attr] = klass.__dict__[attr]
                    break
        cls._backward_cls = type(node_name, (BackwardCFunction,), node_attrs)


class Function(metaclass=FunctionMeta):
    """Base class for differentiable operations; see the module docstring.

    Examples
    --------
    >>> import cygrad
    >>> class Square(cygrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = cygrad.tensor([3.0], requires_grad=True)
    >>> Square.apply(x).backward()
    >>> x.grad.tolist()
    [6.0]
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    apply = classmethod(_E.function_apply)

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{type(self).__name__} should not be instantiated. Methods on "
                      "autograd functions are all static, so call them on the class: "
                      f"{type(self).__name__}.apply(...)", DeprecationWarning, stacklevel=2)


def once_differentiable(backward):
    """Decorate a ``backward`` that is not itself differentiable: it runs with grad
    mode off, and an attempt to differentiate through its result raises an error."""
    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        from .grad_mode import no_grad
        with no_grad():
            result = backward(ctx, *grads)
        from .._core import tensor as _C
        if _C.is_grad_enabled() and any(isinstance(g, TensorBase) and g.requires_grad for g in grads):
            single = not isinstance(result, tuple)
            outs = (result,) if single else result
            deps = [g for g in grads if isinstance(g, TensorBase) and g.requires_grad]
            outs = tuple(_NotDifferentiable.apply(o, *deps) if isinstance(o, TensorBase) else o
                         for o in outs)
            return outs[0] if single else outs
        return result
    return wrapper


class _NotDifferentiable(Function):
    _node_name = "OnceDifferentiableBackward"

    @staticmethod
    def forward(ctx, x, *deps):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")
