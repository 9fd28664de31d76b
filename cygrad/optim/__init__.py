"""``cygrad.optim``: optimizers and learning-rate schedulers (PyTorch's ``torch.optim``).

Every optimizer updates its parameters in place under ``no_grad`` with a few
whole-tensor operations per parameter; see ``docs/optim.md``.

Examples
--------
>>> import cygrad
>>> w = cygrad.tensor([4.0], requires_grad=True)
>>> opt = cygrad.optim.SGD([w], lr=0.1)
>>> sched = cygrad.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
>>> for _ in range(3):
...     opt.zero_grad(); (w * w).sum().backward(); opt.step(); sched.step()
>>> sched.get_last_lr()
[0.0125]
"""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam
from .adamw import AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .adamax import Adamax
from .nadam import NAdam
from .lbfgs import LBFGS
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax",
           "NAdam", "LBFGS", "lr_scheduler"]
