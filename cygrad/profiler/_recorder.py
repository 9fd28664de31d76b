"""The recorder: opens and closes spans on a per-thread stack while a profiler is
active, and collects memory events.

Ops reach it through the wrappers of :mod:`._op_hooks`, backward nodes through the
engine's profiler hooks (``engine._set_profiler_hooks``), ``record_function``
regions directly, and host allocations through ``storage._set_memory_hook``. When
no profiler is active none of these is installed: the engine and the allocator
test one C flag, and ops run unwrapped.
"""
import itertools
import os
import sys
import threading
import time

from ._events import FunctionEvent, MemoryEvent

_now = time.perf_counter_ns
_get_ident = threading.get_ident

# The one active recorder (profilers do not nest, as in PyTorch).
active = None

_CYGRAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _describe_inputs(args):
    """PyTorch's "Input Shapes" and "Input type": a shape per argument ([] for a
    non-tensor), a list of shapes for a list of tensors."""
    from .._core.tensor import TensorBase
    shapes, dtypes = [], []
    for a in args:
        if isinstance(a, TensorBase):
            shapes.append(list(a.shape))
            dtypes.append(str(a.dtype).replace("cygrad.", ""))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, TensorBase) for x in a):
            shapes.append([list(x.shape) for x in a])
            dtypes.append("TensorList")
        else:
            shapes.append([])
            dtypes.append("Scalar" if isinstance(a, (int, float, complex, bool)) else
                          ("" if a is None else type(a).__name__))
    return shapes, dtypes


def _user_stack():
    """The Python call site of an op: frames outside cygrad, innermost first, as
    ``"file.py(line): function"`` (PyTorch's ``with_stack`` format)."""
    frames = []
    f = sys._getframe(3)
    while f is not None and len(frames) < 64:
        path = f.f_code.co_filename
        if not path.startswith(_CYGRAD_DIR):
            frames.append(f"{path}({f.f_lineno}): {f.f_code.co_name}")
        f = f.f_back
    return frames


class Recorder:
    """Spans and memory events of one active recording."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.events = []
        self.memory_events = []
        self.device_events = []     # filled by a device backend (none exists yet)
        self._local = threading.local()
        self._ids = itertools.count(1)
        self.base_ns = _now()
        self.base_epoch_ns = time.time_ns()

    def _stack(self):
        try:
            return self._local.stack
        except AttributeError:
            self._local.stack = []
            return self._local.stack

    def begin(self, name, cat, args=None):
        """Open a span on this thread; returns it for :meth:`end` (None when the
        innermost open span is already this op: ``x @ y`` enters ``__matmul__``,
        which calls ``matmul``, and that is one op, not two)."""
        stack = self._stack()
        parent = stack[-1] if stack else None
        if parent is not None and parent.name == name and parent.cat == cat:
            return None
        ev = FunctionEvent(next(self._ids), name, cat, _get_ident(), 0, parent)
        if parent is not None:
            parent.cpu_children.append(ev)
        if args is not None and self.record_shapes:
            ev.input_shapes, ev.input_dtypes = _describe_inputs(args)
        if self.with_stack:
            ev.stack = _user_stack()
        self.events.append(ev)
        stack.append(ev)
        ev.start_ns = _now()        # last: the bookkeeping above is not the op's time
        return ev

    def end(self, ev):
        """Close ``ev`` (and anything still open above it on this thread)."""
        t = _now()
        if ev is None:
            return
        stack = self._stack()
        while stack:
            top = stack.pop()
            top.end_ns = t
            if top is ev:
                break
        if ev.cpu_parent is not None:
            ev.cpu_parent.cpu_memory_usage += ev.cpu_memory_usage

    def on_memory(self, address, nbytes, total_allocated):
        """The host allocator's callback: one allocation (+) or release (-)."""
        stack = self._stack()
        op = stack[-1] if stack else None
        self.memory_events.append(MemoryEvent(_now(), _get_ident(), address, nbytes,
                                              total_allocated, op))
        if op is not None:
            op.self_cpu_memory_usage += nbytes
            op.cpu_memory_usage += nbytes

    def close_open_spans(self):
        """End every span still open on this thread (at stop)."""
        stack = self._stack()
        while stack:
            self.end(stack[0])


def _node_enter(node):
    rec = active
    if rec is None:
        return None
    return rec, rec.begin(node.name(), "cpu_op")


def _node_exit(token):
    if token is not None:
        token[0].end(token[1])


def _memory(address, nbytes, total):
    rec = active
    if rec is not None:
        rec.on_memory(address, nbytes, total)


def start(recorder):
    """Make ``recorder`` the active one and install the engine, allocator and op hooks."""
    global active
    from .._core import engine, storage
    from . import _op_hooks
    if active is not None:
        raise RuntimeError("Profiler is already enabled on this thread")
    active = recorder
    engine._set_profiler_hooks(_node_enter, _node_exit)
    if recorder.profile_memory:
        storage._set_memory_hook(_memory)
    _op_hooks.install()


def stop(recorder):
    """Remove every hook; ``recorder`` keeps what it recorded."""
    global active
    from .._core import engine, storage
    from . import _op_hooks
    if active is not recorder:
        return
    _op_hooks.uninstall()
    engine._set_profiler_hooks(None, None)
    storage._set_memory_hook(None)
    recorder.close_open_spans()
    active = None
