"""``cygrad.nn.utils``: gradient clipping and parameter/vector conversion.

Examples
--------
>>> import cygrad
>>> from cygrad import nn
>>> lin = nn.Linear(4, 1)
>>> lin(cygrad.ones(2, 4)).sum().backward()
>>> norm = nn.utils.clip_grad_norm_(lin.parameters(), max_norm=0.5)
>>> bool(nn.utils.get_total_norm([p.grad for p in lin.parameters()]) <= 0.5 + 1e-5)
True
"""
from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "parameters_to_vector", "vector_to_parameters"]
