"""The cygrad course: lessons that read the real code, and an instructor tool.

The lessons are scripts in ``examples/course/`` (scalars and the chain rule, tensors,
strides and views, broadcasting, the graph, the backward engine, Functions, nn, optim,
GPU kernels). Most set exercises: marked regions of cygrad's own source that
``python -m cygrad.course make-assignment LESSON OUT/`` blanks in a copy of the
package, and ``python -m cygrad.course check OUT/`` grades with the project's tests.
See ``docs/course.md``.

Examples
--------
>>> from cygrad.course import LESSONS
>>> [les.slug for les in LESSONS][:3]
['chain_rule', 'tensors', 'strides_views']
"""
from .catalogue import LESSONS, Exercise, Lesson, lesson

__all__ = ["LESSONS", "Exercise", "Lesson", "lesson"]
