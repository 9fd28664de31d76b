"""``record_function``: name a region of your code in the profile."""
import contextlib

from . import _recorder

__all__ = ["record_function"]


class record_function(contextlib.ContextDecorator):
    """Record the code inside ``with record_function("name"):`` (or a function
    decorated with ``@record_function("name")``) as one span, shown as
    ``user_annotation`` in the trace with the ops it ran nested inside.

    Outside an active profiler it does nothing.

    Parameters
    ----------
    name : str
        The label shown in tables and traces.
    args : str, optional
        Extra text stored with the span (shown in the trace's ``args``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.profiler import profile, record_function
    >>> with profile() as prof:
    ...     with record_function("my_block"):
    ...         y = cygrad.ones(4).exp()
    >>> block = [e for e in prof.events() if e.name == "my_block"][0]
    >>> [c.name for c in block.cpu_children]
    ['ones', 'exp']
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._spans = []        # a stack: one instance may be entered recursively

    def __enter__(self):
        rec = _recorder.active
        if rec is not None:
            ev = rec.begin(self.name, "user_annotation")
            if self.args is not None:
                ev.record_args = str(self.args)
            self._spans.append((rec, ev))
        else:
            self._spans.append(None)
        return self

    def __exit__(self, *exc):
        span = self._spans.pop() if self._spans else None
        if span is not None:
            span[0].end(span[1])
        return False
