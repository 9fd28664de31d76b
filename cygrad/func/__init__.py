"""Composable function transforms, as ``torch.func``.

``vmap`` vectorizes a function over a batch dimension; ``grad``, ``vjp``, ``jvp``,
``jacrev``, ``jacfwd``, ``hessian`` and ``linearize`` differentiate functions;
``functional_call`` and ``stack_module_state`` run modules with parameters passed in
(model ensembling). The transforms compose: ``vmap(grad(f))``, ``jacrev(jacrev(f))``,
``jacfwd(jacrev(f))``. See the "Function transforms" page of the documentation.

Examples
--------
>>> import cygrad
>>> from cygrad.func import vmap, grad
>>> x = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> vmap(grad(lambda r: (r ** 2).sum()))(x).tolist()      # per-row gradients
[[2.0, 4.0], [6.0, 8.0]]
"""
from ._vmap import vmap
from ._eager import grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, linearize
from ._module import (functional_call, stack_module_state, replace_all_batch_norm_modules_,
                      functionalize, debug_unwrap)

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "linearize", "functional_call", "stack_module_state",
           "replace_all_batch_norm_modules_", "functionalize", "debug_unwrap"]
