"""CPU kernels of the recurrent layers (``cygrad/nn/_ops/rnn.py``): one time step's
elementwise work of an LSTM, GRU or Elman RNN, forward and backward, as C loops in
``cygrad/_core/cpu/rnn.c`` behind :mod:`cygrad._core.rnn_kernels` (float32 and
float64, contiguous tensors; the layers use tensor ops for other dtypes).

Examples
--------
>>> import cygrad
>>> from cygrad._core import dispatch
>>> step = dispatch.lookup("elman_step", "cpu", cygrad.float32)
>>> step(cygrad.zeros(1, 2), cygrad.ones(1, 2), cygrad.empty(1, 2), True).tolist()
[[1.0, 1.0]]
>>> dispatch.lookup("elman_step", "cpu", cygrad.float16) is None
True
"""
from .. import rnn_kernels as K
from ..dispatch import register

_FLOATS = ("float32", "float64")

for _name in ("lstm_step", "lstm_step_backward", "gru_step", "gru_step_backward", "elman_step",
              "elman_step_backward"):
    register(_name, "cpu", dtypes=_FLOATS)(getattr(K, _name))
