"""Module full backward hooks, built from an identity autograd Function.

A call of a module that has full backward (pre-)hooks passes its positional tensor
inputs, and then its outputs, through ``BackwardHookFunction``: an identity whose
backward hands the gradients to a callback. The engine reaches the outputs'
identity first (the gradients w.r.t. the module's outputs: the pre-hooks run and
may replace them) and the inputs' identity last, once every path through the
module has contributed (the gradients w.r.t. its inputs: the full hooks run and
may replace them).
"""
import warnings

from ..._tensor import Tensor
from ...autograd.function import Function
from ..._core.tensor import is_grad_enabled

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """Identity on its tensors; ``callback(grads)`` filters their gradients."""

    @staticmethod
    def forward(ctx, callback, materialize, *tensors):
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        # Gradients of unused outputs stay None on the output side (the pre-hooks
        # see None there, as in PyTorch) but are zeros on the input side.
        ctx.set_materialize_grads(materialize)
        ctx.callback = callback
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None, None) + tuple(ctx.callback(grads))


def _tensor_positions(values):
    return [i for i, v in enumerate(values) if isinstance(v, Tensor)]


def _any_requires_grad(values):
    return is_grad_enabled() and any(isinstance(v, Tensor) and v.requires_grad for v in values)


class BackwardHook:
    """The state of one module call with full backward hooks (a new one per call)."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.n_inputs = 0
        self.input_positions = None     # None: no input requires grad
        self.n_outputs = 0
        self.output_positions = []
        self.grad_outputs = None

    def _pack(self, positions, values, size):
        """A tuple of ``size`` entries: ``values`` at ``positions``, None elsewhere."""
        packed = [None] * size
        for i, v in zip(positions, values):
            packed[i] = v
        return tuple(packed)

    def _wrap(self, values, positions, callback, materialize):
        wrapped = BackwardHookFunction.apply(callback, materialize,
                                             *[values[i] for i in positions])
        out = list(values)
        for i, t in zip(positions, wrapped):
            out[i] = t
        return out

    # ---- inputs

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        if not _any_requires_grad(args):
            return args
        self.input_positions = _tensor_positions(args)
        return tuple(self._wrap(args, self.input_positions, self._on_grad_inputs, True))

    def _on_grad_inputs(self, grads):
        grad_input = self._pack(self.input_positions, grads, self.n_inputs)
        grad_input = self._run_hooks(grad_input)
        self.grad_outputs = None
        return [grad_input[i] for i in self.input_positions]

    def _run_hooks(self, grad_input):
        for hook in self.hooks:
            res = hook(self.module, grad_input, self.grad_outputs)
            if res is None:
                continue
            if len(res) != len(grad_input):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                   f"got {len(res)}, but expected {len(grad_input)}")
            grad_input = tuple(res)
        return grad_input

    # ---- outputs

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        values = (result,) if single else result
        if not _any_requires_grad(values):
            return result
        self.n_outputs = len(values)
        self.output_positions = _tensor_positions(values)
        out = self._wrap(values, self.output_positions, self._on_grad_outputs, False)
        return out[0] if single else tuple(out)

    def _on_grad_outputs(self, grads):
        grad_output = self._pack(self.output_positions, grads, self.n_outputs)
        for hook in self.pre_hooks:
            res = hook(self.module, grad_output)
            if res is None:
                continue
            if len(res) != len(grad_output):
                raise RuntimeError(f"Backward pre hook returned an invalid number of "
                                   f"grad_output, got {len(res)}, but expected "
                                   f"{len(grad_output)}")
            grad_output = tuple(res)
        self.grad_outputs = grad_output
        if self.input_positions is None:
            # No input needs a gradient, so the inputs' identity never runs: the full
            # hooks run here, with no gradients to change.
            grad_input = self._pack([], [], self.n_inputs)
            if self.hooks:
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients. "
                              "See Module.register_full_backward_hook's documentation.")
            for hook in self.hooks:
                res = hook(self.module, grad_input, self.grad_outputs)
                if res is not None and not all(r is None for r in res):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return [grad_output[i] for i in self.output_positions]
