"""Watch the backward engine work, one step at a time (a teaching tool).

``cygrad.autograd.trace()`` is a context manager; every backward pass run inside it
is recorded event by event, as the engine reports them:

* ``run``        a node is called with the gradients of its outputs (*grads in*);
* ``done``       it returned the gradients of its inputs (*grads out*);
* ``accumulate`` an ``AccumulateGrad`` node adds a gradient into a leaf's ``.grad``;
* ``release``    the node's saved tensors were freed (no ``retain_graph``).

``print(t)`` shows them as a table with one row per engine step (a node call, with
its release, or an accumulation).

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * x                                   # x used twice
>>> with cygrad.autograd.trace(params={"x": x}) as t:
...     y.backward(cygrad.ones_like(y))
>>> [(e.step, e.node, e.kind) for e in t.events]
[(1, 'MulBackward0', 'run'), (1, 'MulBackward0', 'done'), (1, 'MulBackward0', 'release'), (2, 'AccumulateGrad', 'accumulate')]
>>> print(t)
step | node               | grads in    | grads out   | note
-----+--------------------+-------------+-------------+---------------------------------------
   1 | MulBackward0       | (2,) [1, 1] | (2,) [1, 2] | freed 2 saved tensors: (2,) (2,)
     |                    |             | (2,) [1, 2] |
   2 | AccumulateGrad (x) | (2,) [2, 4] |             | sum of 2 incoming grads; x.grad = grad

The two gradients for ``x`` (one per use) are summed by the engine in a buffer, so
``x``'s ``AccumulateGrad`` runs once, with their sum.
"""
import weakref
from dataclasses import dataclass, field

from .._core import engine as _E
from .._core import tensor as _C
from .graph import saved_info

__all__ = ["trace", "TraceEvent", "GradSummary"]


@dataclass(frozen=True)
class GradSummary:
    """A small picture of one gradient: its shape, dtype and first few values."""
    shape: tuple
    dtype: str
    values: tuple           # the first few elements, as Python floats
    numel: int

    def __str__(self):
        vals = ", ".join(_fmt(v) for v in self.values)
        if self.numel > len(self.values):
            vals += ", …"
        return f"{self.shape} [{vals}]"


@dataclass(frozen=True)
class TraceEvent:
    """One engine event.

    Attributes
    ----------
    step : int
        Engine step it belongs to (a node call with its ``done``/``release``, or one
        accumulation), numbered from 1.
    node : str
        The node's name, e.g. ``"MulBackward0"`` or ``"AccumulateGrad"``.
    node_id : int
        Distinguishes nodes of the same name: the order in which this trace first saw
        the node (from 1).
    kind : str
        ``"run"``, ``"done"``, ``"accumulate"`` or ``"release"``.
    grads_in, grads_out : tuple of (GradSummary or None)
        The gradients flowing into the node (``run``, ``accumulate``) or out of it
        towards its inputs (``done``); empty for other kinds.
    note : str
        Extra facts: how many contributions were summed, which leaf's ``.grad``
        changed, which saved tensors were freed.
    leaf : str
        For ``accumulate``: the leaf's name from ``params`` ("" if it has none).
    """
    step: int
    node: str
    node_id: int
    kind: str
    grads_in: tuple = field(default=())
    grads_out: tuple = field(default=())
    note: str = ""
    leaf: str = ""


def _fmt(v):
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if v == int(v) and abs(v) < 1e6:
        return str(int(v))
    return f"{v:.4g}"


def _summary(g, nvalues):
    if g is None:
        return None
    values = ()
    try:
        arr = _C._ndarray(g)        # a NumPy view: reading it records nothing
        values = tuple(float(v) for v in arr.flat[:nvalues])
    except Exception:               # e.g. a device tensor: shape only
        pass
    return GradSummary(tuple(g.shape), g.dtype.name, values, g.numel())


class trace:
    """Record the backward engine's events inside a ``with`` block.

    Parameters
    ----------
    params : mapping of str to Tensor, optional
        Names for leaves (``dict(model.named_parameters())``), used in the notes.
    max_values : int
        How many leading values of each gradient to keep.

    Attributes
    ----------
    events : list of TraceEvent
        Every event, in the order the engine emitted it.

    Notes
    -----
    The engine has a single observer slot: the trace installs itself there and
    passes each event on to the observer it replaced (so traces can nest), then
    puts that observer back on exit. Events from any thread running a backward pass
    while the trace is active are recorded.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([3.0], requires_grad=True)
    >>> with cygrad.autograd.trace() as t:
    ...     a.exp().backward()
    >>> [e.kind for e in t.events]
    ['run', 'done', 'release', 'accumulate']
    """

    def __init__(self, params=None, max_values=3):
        self.events = []
        self.max_values = max_values
        self._names = {}
        if params is not None:
            items = list(params.items() if hasattr(params, "items") else params)
            self._names = {id(t): str(n) for n, t in items}
            self._params = items           # keeps the named tensors (and their ids) alive
        self._node_ids = weakref.WeakKeyDictionary()
        self._nodes_seen = 0
        self._step = 0
        self._pending = weakref.WeakKeyDictionary()   # node -> gradients sent to it so far
        self._saved = {}           # node_id -> saved-tensor info captured at "run"
        self._prev = None
        self._active = False

    # -------------------------------------------------------------- context manager
    def __enter__(self):
        if self._active:
            raise RuntimeError("this trace is already active")
        self._prev = _current_observer()
        _install(self._observe)
        self._active = True
        return self

    def __exit__(self, *exc):
        _install(self._prev)
        self._prev = None
        self._active = False
        return False

    # --------------------------------------------------------------------- recording
    def _node_id(self, node):
        nid = self._node_ids.get(node)
        if nid is None:
            # a counter, not len(): nodes of finished graphs drop out of the dict
            self._nodes_seen += 1
            nid = self._node_ids[node] = self._nodes_seen
        return nid

    def _observe(self, event, node, data):
        try:
            self._record(event, node, data)
        finally:
            if self._prev is not None:
                self._prev(event, node, data)

    def _record(self, event, node, data):
        nid = self._node_id(node)
        name = node.name().rsplit("::", 1)[-1]     # "torch::autograd::AccumulateGrad" style
        n = self.max_values
        if event == "run":
            self._step += 1
            self._saved[nid] = saved_info(node)
            grads = tuple(_summary(g, n) for g in data)
            self.events.append(TraceEvent(self._step, name, nid, "run", grads_in=grads,
                                          note=self._summed_note(node)))
        elif event == "done":
            self._count_sent(node, data)
            grads = tuple(_summary(g, n) for g in data)
            self.events.append(TraceEvent(self._step, name, nid, "done", grads_out=grads))
        elif event == "accumulate":
            self._step += 1
            var = node.variable
            leaf = self._names.get(id(var), "")
            op = "=" if var.grad is None else "+="
            note = f"{leaf or 'leaf'}.grad {op} grad"
            summed = self._summed_note(node)
            note = f"{summed}; {note}" if summed else note
            self.events.append(TraceEvent(self._step, name, nid, "accumulate",
                                          grads_in=(_summary(data, n),), note=note, leaf=leaf))
        elif event == "release":
            info = self._saved.pop(nid, None)
            count = len([s for s in info if s is not None]) if info else 0
            if count:
                shapes = " ".join(str(s[0]) for s in info if s is not None)
                plural = "s" if count > 1 else ""
                note = f"freed {count} saved tensor{plural}: {shapes}"
            else:
                note = ""
            self.events.append(TraceEvent(self._step, name, nid, "release", note=note))
        else:                       # an event this version does not know: keep it raw
            self.events.append(TraceEvent(self._step, name, nid, str(event)))

    def _count_sent(self, node, grads):
        """Remember how many gradients each next node receives: the engine sums
        several contributions to one input in a buffer before that node runs."""
        for (child, _), g in zip(node.next_functions or (), grads):
            if child is not None and g is not None:
                self._pending[child] = self._pending.get(child, 0) + 1

    def _summed_note(self, node):
        count = self._pending.pop(node, 0)
        return f"sum of {count} incoming grads" if count > 1 else ""

    # ----------------------------------------------------------------------- display
    def steps(self):
        """The events grouped by step: a list of lists."""
        groups = []
        for e in self.events:
            if groups and groups[-1][0].step == e.step:
                groups[-1].append(e)
            else:
                groups.append([e])
        return groups

    def table(self):
        """A fixed-width text table: ``step | node | grads in | grads out | note``."""
        names_seen = {}
        for e in self.events:
            names_seen.setdefault(e.node, set()).add(e.node_id)
        rows = []
        for group in self.steps():
            first = group[0]
            label = first.node
            if first.leaf:
                label += f" ({first.leaf})"
            elif len(names_seen[first.node]) > 1:
                # several nodes share this name: number them in order of appearance
                label += f" #{sorted(names_seen[first.node]).index(first.node_id) + 1}"
            grads_in, grads_out, notes = [], [], []
            for e in group:
                grads_in += [str(g) for g in e.grads_in]
                grads_out += [str(g) for g in e.grads_out]
                if e.note:
                    notes.append(e.note)
            rows.append([[str(first.step)], [label], grads_in, grads_out, notes])
        return _format_table(["step", "node", "grads in", "grads out", "note"], rows)

    def __str__(self):
        return self.table()

    def __repr__(self):
        return f"<cygrad.autograd.trace: {len(self.events)} events>"


def _format_table(header, rows):
    """Columns padded to their widest cell; a cell may hold several lines."""
    widths = [len(h) for h in header]
    for row in rows:
        for c, cell in enumerate(row):
            for line in cell:
                widths[c] = max(widths[c], len(line))
    widths[0] = max(widths[0], 4)

    def line(cells, right_first=True):
        parts = []
        for c, text in enumerate(cells):
            parts.append(text.rjust(widths[c]) if c == 0 and right_first else text.ljust(widths[c]))
        return " | ".join(parts).rstrip()

    out = [line(header, right_first=False),
           "-+-".join("-" * w for w in widths)]
    if not rows:
        out.append("(no backward pass ran inside this trace)")
    for row in rows:
        height = max(1, max(len(cell) for cell in row))
        for k in range(height):
            out.append(line([cell[k] if k < len(cell) else "" for cell in row]))
    return "\n".join(out)


# ---------------------------------------------------------------- the observer slot

_installed = [None]      # what this module last put in the engine's observer slot


def _current_observer():
    getter = getattr(_E, "_get_observer", None)
    return getter() if getter is not None else _installed[0]


def _install(fn):
    _installed[0] = fn
    _E._set_observer(fn)
