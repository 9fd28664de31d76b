"""A tour of cygrad in one script: tensors, views, broadcasting, NumPy interop, speed.

Run it from the repository root after ``pip install -e .``::

    python examples/demo.py

The last part times a few benchmark cases (from ``bench/``, small sizes) for
cygrad, NumPy and, when installed, PyTorch. It takes well under 30 seconds.
"""
import os
import sys

import numpy as np

import cygrad

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def section(title):
    print(f"\n=== {title} " + "=" * max(0, 60 - len(title)))


def tensors():
    section("Tensors")
    x = cygrad.arange(12, dtype=cygrad.float32).reshape(3, 4)
    print("x =", x)
    print("x.shape:", x.shape, " x.dtype:", x.dtype, " x.stride():", x.stride())
    print("x * 2 + 1 =", x * 2 + 1)
    print("x.exp().sum() =", x.exp().sum().item())


def views():
    section("Views share memory")
    x = cygrad.arange(12).reshape(3, 4)
    y = x.t()                 # transpose: new strides, same storage
    row = x[1]                # basic indexing is a view too
    print("y = x.t(); y.stride():", y.stride(), " contiguous:", y.is_contiguous())
    print("same buffer:", x.data_ptr() == y.data_ptr())
    x[0, 1] = 100             # a write through x ...
    row.fill_(-1)             # ... and one through a view of x
    print("after x[0, 1] = 100 and x[1].fill_(-1), y (the transpose) sees both:")
    print(y)
    print("x._version counts in-place writes (shared by all views):", x._version)


def broadcasting_and_promotion():
    section("Broadcasting and type promotion (as PyTorch)")
    col = cygrad.tensor([[1], [2], [3]])           # (3, 1) int64
    row = cygrad.arange(4, dtype=cygrad.float32)   # (4,)   float32
    s = col + row
    print("(3, 1) int64 + (4,) float32 ->", tuple(s.shape), s.dtype)
    print(s)
    ints = cygrad.tensor([1, 2, 3])
    print("int64 tensor + 2.5    ->", (ints + 2.5).dtype, "(a Python float does not widen to float64)")
    print("int64 tensor / 2      ->", (ints / 2).dtype, "(true division)")
    print("float32 + float64 tensor ->", (row + cygrad.ones(4, dtype=cygrad.float64)).dtype)
    print("cygrad.result_type(ints, 1.0) =", cygrad.result_type(ints, 1.0))


def numpy_interop():
    section("NumPy interop without copies")
    a = np.zeros(4, dtype=np.float32)
    t = cygrad.from_numpy(a)        # shares a's memory
    t += 1                          # in place: writes into a
    print("a after t += 1 on t = cygrad.from_numpy(a):", a)
    back = t.numpy()                # a view of the same memory again
    print("np.shares_memory(a, t.numpy()):", np.shares_memory(a, back))
    w = cygrad.arange(6, dtype=cygrad.float64).reshape(2, 3).t()
    v = w.numpy()                   # non-contiguous views keep their strides
    print("t().numpy() strides (bytes):", v.strides, " values:", v.tolist())
    print("NumPy functions accept tensors: np.sqrt(t) =", np.sqrt(t))


def quick_benchmark():
    section("Speed: cygrad vs NumPy vs PyTorch (a few cases, small sizes)")
    sys.path.insert(0, os.path.join(REPO, "bench"))
    try:
        import harness
        from cases import make_cases
    except ImportError as exc:
        print(f"(bench/ not found next to this script: {exc}; skipping)")
        return
    wanted = ["a + b", "a.sum()", "a[3:50]", "add  a + b", "exp", "x.sum(1)"]
    cases = [c for c in make_cases(quick=True) if c.name in wanted]
    libs = harness.available_libraries()
    if "torch" not in libs:
        print("(PyTorch not installed: comparing with NumPy only)")
    print(f"{harness.cpu_count()} cores available; times are the minimum of a few repeats; "
          "below 1.00x cygrad is faster. Full suite: python bench/run.py")
    warning = harness.load_warning(harness.load_average(), harness.cpu_count())
    if warning:
        print(warning)
    config = harness.Config(number=10_000, repeat=3, large_repeat=3)
    table = harness.Table(libs)
    table.header()
    results = []
    for case in cases:
        results.append(harness.run_case(case, libs, config))
        table.row(results[-1])
    table.footnotes(results)


def main():
    print(f"cygrad {cygrad.__version__}, NumPy {np.__version__}, "
          f"{cygrad.get_num_threads()} kernel threads, CUDA available: {cygrad.cuda.is_available()}")
    tensors()
    views()
    broadcasting_and_promotion()
    numpy_interop()
    quick_benchmark()


if __name__ == "__main__":
    main()
