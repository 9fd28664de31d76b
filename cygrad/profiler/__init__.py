"""cygrad.profiler: where the time (and host memory) goes, with PyTorch's
``torch.profiler`` API.

Examples
--------
>>> import cygrad
>>> from cygrad.profiler import profile, record_function
>>> x = cygrad.randn(16, 16, requires_grad=True)
>>> with profile(record_shapes=True) as prof:
...     with record_function("step"):
...         (x @ x).relu().sum().backward()
>>> sorted({e.name for e in prof.events()} & {"step", "matmul", "relu", "MmBackward0"})
['MmBackward0', 'matmul', 'relu', 'step']

See ``docs/profiler.md`` for reading the table, the trace and the timeline.
"""
from ._events import DeviceEvent, EventList, FunctionEvent, MemoryEvent
from ._profile import ProfilerActivity, profile, supported_activities
from ._record_function import record_function
from ._schedule import ProfilerAction, schedule
from ._tensorboard import tensorboard_trace_handler
from ._timeline import plot_timeline

__all__ = ["profile", "record_function", "schedule", "ProfilerAction", "ProfilerActivity",
           "supported_activities", "tensorboard_trace_handler", "plot_timeline",
           "EventList", "FunctionEvent", "MemoryEvent", "DeviceEvent"]

from ..autograd import profiler as _autograd_profiler  # noqa: E402,F401  (the torch.autograd.profiler path)
