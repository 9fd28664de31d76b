"""The course's lessons, in order, and the exercises each one sets.

A lesson is a script in ``examples/course/`` that reads top to bottom. An exercise is a
marked region of the real cygrad source (see :mod:`cygrad.course.regions`) plus the
tests that grade it: pytest node ids, where a trailing ``*`` matches any rest of the
id (``...::test_x[SGD-*`` is every SGD case of ``test_x``) and an id without ``*``
also covers its parametrized cases. Grading tests come from two places: the
project's own tests (the op table's gradcheck rows, the optimizers' NumPy
references ...) and each lesson's checks in ``tests/course/``, which compare with
NumPy or hand-derived values so that one exercise's grade does not depend on
another exercise of the same lesson being solved.

Examples
--------
>>> from cygrad.course.catalogue import LESSONS, lesson
>>> len(LESSONS)
10
>>> lesson("9").slug, [e.id for e in lesson("optim").exercises]
('optim', ['sgd-update', 'adam-update'])
"""
from dataclasses import dataclass

__all__ = ["Exercise", "Lesson", "LESSONS", "lesson"]

_AUTOGRAD_OPS = "tests/test_autograd_ops.py"


@dataclass(frozen=True)
class Exercise:
    """One blankable region: ``id`` names its markers, ``path`` is the source file
    (relative to the repository root), ``hint`` goes into the blanked ``raise`` and
    ``tests`` are the node-id patterns that grade it.

    Examples
    --------
    >>> from cygrad.course.catalogue import lesson
    >>> lesson(1).exercises[0].path
    'cygrad/ops/elementwise/binary.py'
    """
    id: str
    path: str
    hint: str
    tests: tuple


@dataclass(frozen=True)
class Lesson:
    """A lesson: its number, short name (``slug``), title, script and exercises.

    Examples
    --------
    >>> from cygrad.course.catalogue import lesson
    >>> lesson("broadcasting").script
    'examples/course/04_broadcasting.py'
    """
    number: int
    slug: str
    title: str
    exercises: tuple = ()

    @property
    def script(self):
        """The lesson script's path, relative to the repository root."""
        return f"examples/course/{self.number:02d}_{self.slug}.py"

    @property
    def checks(self):
        """The lesson's own test file, relative to the repository root."""
        return f"tests/course/test_lesson{self.number:02d}_{self.slug}.py"

    @property
    def name(self):
        """``NN_slug``, the name used on the command line and in file names."""
        return f"{self.number:02d}_{self.slug}"


def _checks(number, slug, *tests):
    return tuple(f"tests/course/test_lesson{number:02d}_{slug}.py::{t}" for t in tests)


LESSONS = (
    Lesson(1, "chain_rule", "Scalars and the chain rule", (
        Exercise("mul-partials", "cygrad/ops/elementwise/binary.py",
                 "return the two partial derivatives (d(ab)/da, d(ab)/db)",
                 _checks(1, "chain_rule", "test_mul_gradients_are_the_other_factor",
                         "test_product_rule_through_a_chain")
                 + (f"{_AUTOGRAD_OPS}::test_gradcheck[mul]",)),
        Exercise("sin-derivative", "cygrad/ops/elementwise/unary.py",
                 "return sin'(x), written with cygrad ops so it is differentiable too",
                 _checks(1, "chain_rule", "test_sin_gradient_is_cos",
                         "test_sin_second_derivative")
                 + (f"{_AUTOGRAD_OPS}::test_gradcheck[sin]",)),
    )),
    Lesson(2, "tensors", "Tensors: storage, dtype and shape", (
        Exercise("infer-dtype", "cygrad/_core/backend_cpu/_pydata.py",
                 "bool stays bool, any integer becomes int64, a float the default dtype, "
                 "a complex its complex counterpart; otherwise TypeError",
                 _checks(2, "tensors", "test_inferred_dtypes",
                         "test_default_dtype_decides_floats")
                 + ("tests/test_creation.py::test_dtype_inference",)),
    )),
    Lesson(3, "strides_views", "Strides and views", (
        Exercise("permute-inverse", "cygrad/ops/view_functions.py",
                 "build the permutation that undoes perm: inv[perm[i]] = i",
                 _checks(3, "strides_views", "test_inverse_permutation",
                         "test_permute_gradient_goes_back")
                 + (f"{_AUTOGRAD_OPS}::test_gradcheck[permute]",)),
        Exercise("window-view", "cygrad/nn/_ops/_sliding.py",
                 "sizes (N, C, *kernel, *out); the step of a kernel dim is stride*dilation "
                 "in elements, of an output dim stride*conv_stride",
                 _checks(3, "strides_views", "test_window_view_is_the_loop",
                         "test_python_im2col_matches_the_c_kernel")),
    )),
    Lesson(4, "broadcasting", "Broadcasting", (
        Exercise("broadcast-shapes", "cygrad/ops/shape/broadcasting.py",
                 "align the shapes on the right; a size 1 stretches, any other mismatch "
                 "raises RuntimeError",
                 _checks(4, "broadcasting", "test_broadcast_shapes_match_numpy",
                         "test_broadcast_shapes_refuse_a_mismatch")
                 + ("tests/test_shape.py::test_broadcast_shapes_match_torch",)),
        Exercise("expand-backward", "cygrad/ops/view_functions.py",
                 "sum the gradient over the dims expand added or stretched, then reshape "
                 "to the base's shape; return (grad, None, None, None)",
                 _checks(4, "broadcasting", "test_expand_gradient_sums_the_repeats")
                 + (f"{_AUTOGRAD_OPS}::test_gradcheck[broadcast_to]",)),
    )),
    Lesson(5, "graph", "The graph", (
        Exercise("count-dependencies", "cygrad/autograd/reference.py",
                 "walk next_functions from start; dependencies[node] = number of edges "
                 "into node",
                 _checks(5, "graph", "test_diamond_graph_gradient",
                         "test_node_used_three_times")
                 + (f"{_AUTOGRAD_OPS}::test_reference_engine_gives_the_real_engines_gradients",)),
    )),
    Lesson(6, "backward_engine", "The backward engine", (
        Exercise("ready-queue", "cygrad/autograd/reference.py",
                 "pop a ready node, call it (_call), add each input gradient into the "
                 "child's buffer, and push the child when its count reaches zero; "
                 "AccumulateGrad adds into the leaf's .grad",
                 _checks(6, "backward_engine", "test_reference_matches_hand_derivatives",
                         "test_leaf_gradients_accumulate")
                 + (f"{_AUTOGRAD_OPS}::test_reference_engine_gives_the_real_engines_gradients",)),
        Exercise("sum-to-shape", "cygrad/autograd/reference.py",
                 "sum over the leading dims broadcasting added, then (keepdim) over the "
                 "dims that were size 1 in shape",
                 _checks(6, "backward_engine", "test_sum_to_matches_numpy",
                         "test_reference_broadcast_gradients")),
    )),
    Lesson(7, "functions", "Functions: forward, backward, jvp", (
        Exercise("unary-backward", "cygrad/ops/elementwise/unary.py",
                 "the chain rule in reverse: grad_x = grad * conj(derivative(saved))",
                 _checks(7, "functions", "test_unary_backward_matches_numpy")),
        Exercise("unary-jvp", "cygrad/ops/elementwise/unary.py",
                 "the chain rule forward: tangent_y = tangent * derivative(saved)",
                 _checks(7, "functions", "test_unary_jvp_matches_numpy")),
        Exercise("central-difference", "cygrad/autograd/gradcheck.py",
                 "nudge arr[idx] by +step and -step, run func, restore the value, and store "
                 "(plus - minus) / (2 eps) as column j of each output's block",
                 _checks(7, "functions", "test_numerical_jacobian_of_a_known_function",
                         "test_gradcheck_catches_a_wrong_backward")
                 + ("tests/test_gradcheck.py::test_fails_on_wrong_function_returns_false",
                    "tests/test_gradcheck.py::test_non_contiguous_input_perturbed_in_place_"
                    "and_restored")),
    )),
    Lesson(8, "nn", "nn: modules and parameters", (
        Exercise("linear-backward", "cygrad/nn/_ops/linear.py",
                 "return (grad @ W, grad.T @ x, grad summed over rows), None where "
                 "needs_input_grad says so",
                 _checks(8, "nn", "test_linear_gradients_match_numpy")
                 + ("tests/nn/test_linear_function.py::test_linear_backward_values",)),
        Exercise("linear-init", "cygrad/nn/modules/linear.py",
                 "kaiming_uniform_ the weight with a=sqrt(5); draw the bias from "
                 "U(-1/sqrt(fan_in), 1/sqrt(fan_in))",
                 _checks(8, "nn", "test_linear_init_ranges_and_spread")
                 + ("tests/nn/test_linear.py::test_default_init_ranges",)),
    )),
    Lesson(9, "optim", "optim: the update rules", (
        Exercise("sgd-update", "cygrad/optim/sgd.py",
                 "g (+ weight_decay * p), the momentum buffer b = mu b + (1 - dampening) g "
                 "(b = g at first), nesterov, then p -= lr * step; negate g for maximize",
                 _checks(9, "optim", "test_sgd_steps_by_hand")
                 + ("tests/optim/test_optim_numpy_reference.py::"
                    "test_three_steps_match_numpy[SGD-*",)),
        Exercise("adam-update", "cygrad/optim/adam.py",
                 "m and v as running averages of g and g*g, bias-corrected by 1 - beta**t; "
                 "p -= lr * m_hat / (sqrt(v_hat) + eps); amsgrad keeps the max of v",
                 _checks(9, "optim", "test_adam_first_steps_by_hand")
                 + ("tests/optim/test_optim_numpy_reference.py::"
                    "test_three_steps_match_numpy[Adam-*",
                    "tests/optim/test_optim_numpy_reference.py::"
                    "test_three_steps_match_numpy[AdamW-*")),
    )),
    Lesson(10, "gpu_kernels", "GPU kernels: the CUDA execution model"),
)


def lesson(key):
    """The lesson named by ``key``: its number (``9`` or ``"09"``), slug (``"optim"``)
    or full name (``"09_optim"``). KeyError names the lessons if none matches.

    Examples
    --------
    >>> from cygrad.course.catalogue import lesson
    >>> lesson("09_optim").title
    'optim: the update rules'
    """
    text = str(key).strip()
    for les in LESSONS:
        if text in (les.slug, les.name) or (text.isdigit() and int(text) == les.number):
            return les
    raise KeyError(f"no lesson {key!r}; the lessons are: "
                   + ", ".join(les.name for les in LESSONS))
