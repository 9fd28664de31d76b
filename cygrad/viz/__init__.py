"""Pictures for teaching: storage and strides, broadcasting, the backward graph
and the backward pass step by step.

matplotlib (and the ``graphviz`` package, for :func:`graph`) are imported only
when a picture is drawn: ``pip install "cygrad[viz]"``.

Examples
--------
>>> import cygrad
>>> lay = cygrad.viz.strides_layout(cygrad.arange(4.0)[::-2])
>>> lay.offset, lay.strides
(3, (-2,))
"""
from .strides import strides, strides_layout, StridesLayout
from .broadcast import broadcast, broadcast_layout, BroadcastLayout
from .graph import graph, graphviz_available
from .backward import trace_table, backward_steps, animate_backward, BackwardStep

__all__ = ["strides", "strides_layout", "StridesLayout", "broadcast", "broadcast_layout",
           "BroadcastLayout", "graph", "graphviz_available",
           "trace_table", "backward_steps", "animate_backward", "BackwardStep"]
