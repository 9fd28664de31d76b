"""CPU kernels of the fused optimizer steps (``cygrad/optim/_fused.py``): C loops in
``cygrad/_core/cpu/optim.c`` behind :mod:`cygrad._core.optim_kernels`, one call
for a list of parameters, the GIL released and large steps split over the
thread pool:

* ``fused_sgd_(params, grads, momentum_buffers, first, lr, weight_decay, momentum,
  dampening, nesterov, maximize)``;
* ``fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr,
  beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled)``;
* ``fused_optim_fusable(param, *grad_and_buffers)``: whether the two above take
  this parameter (float32/float64, C-contiguous, one dtype and shape).

Examples
--------
>>> import cygrad
>>> from cygrad._core import dispatch
>>> p = cygrad.tensor([1.0, 2.0])
>>> dispatch.kernel("fused_optim_fusable", "cpu")(p, cygrad.ones(2))
True
>>> dispatch.kernel("fused_sgd_", "cpu")([p], [cygrad.ones(2)], [None], [False],
...                                      0.5, 0.0, 0.0, 0.0, False, False)
>>> p.tolist()
[0.5, 1.5]
"""
from .. import optim_kernels
from ..dispatch import register

register("fused_sgd_", "cpu")(optim_kernels.sgd_)
register("fused_adam_", "cpu")(optim_kernels.adam_)
register("fused_optim_fusable", "cpu")(optim_kernels.fusable)
