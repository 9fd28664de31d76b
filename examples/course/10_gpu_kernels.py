"""Lesson 10: GPU kernels and the CUDA execution model.

Run it: ``python examples/course/10_gpu_kernels.py``.

What exists today, honestly: cygrad computes on the CPU. ``cuda_src/elementwise.cu``
holds its first CUDA kernels (add, sub, mul, div, neg, exp, tanh, sigmoid; float and
double; contiguous and strided), and CI compiles them with ``nvcc`` where it is
installed, but there is no GPU tensor yet: no driver binding, no device allocator,
and ``cygrad.cuda.is_available()`` is False until that backend lands (see
``docs/index.md``, section CUDA). So this lesson reads the real kernel source and runs
its indexing logic in Python/NumPy over a *simulated* grid, checked against cygrad's
CPU result.

The model: a kernel launch starts a grid of ``gridDim`` blocks of ``blockDim``
threads. Each thread runs the same function and finds its work from its coordinates:
``i = blockIdx * blockDim + threadIdx``. A *grid-stride loop* then steps ``i`` by the
total thread count, so any grid covers any ``n``. Threads run in warps of 32; a warp's
memory accesses are served in 32-byte sectors, so neighbouring threads reading
neighbouring addresses (coalesced) cost far fewer transactions than scattered ones.

No exercise here: the kernels are CUDA C++, not Python, and cannot be blanked and
graded on a machine without a GPU.
"""
import re
from pathlib import Path

import numpy as np

import cygrad

CU = Path(__file__).resolve().parents[2] / "cuda_src" / "elementwise.cu"


def section(title):
    print(f"\n== {title}")


def cu_function(source, name):
    """The text of the function ``name`` in ``source`` (from its signature to the brace
    that closes its body)."""
    start = re.search(r"^[^\n]*\b" + name + r"\(", source, re.M).start()
    depth, i = 0, source.index("{", start)
    while True:
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
        if depth == 0:
            return source[start:i]


source = CU.read_text()

# ---------------------------------------------------------------------------------------
section("1. The kernel, as written in cuda_src/elementwise.cu")
for name in ("cg_first_index", "cg_grid_stride", "cg_binary_contig"):
    print(cu_function(source, name), "\n")

# ---------------------------------------------------------------------------------------
section("2. A simulated launch: who does what")
# Every thread's loop, i = first; i < n; i += stride, run in Python.
n, grid_dim, block_dim = 50, 3, 8            # deliberately fewer threads (24) than n
work = {}
for block in range(grid_dim):
    for thread in range(block_dim):
        first = block * block_dim + thread   # cg_first_index
        work[(block, thread)] = list(range(first, n, block_dim * grid_dim))  # cg_grid_stride
for key in [(0, 0), (0, 1), (2, 7)]:
    print(f"  block {key[0]} thread {key[1]} handles i = {work[key]}")
covered = sorted(i for items in work.values() for i in items)
print(f"{grid_dim * block_dim} threads cover all {n} elements exactly once:", covered == list(range(n)))

# ---------------------------------------------------------------------------------------
section("3. The strided kernel: element offsets from shape and strides")
print(cu_function(source, "cg_offsets"), "\n")


def cg_offsets(shape, strides, i):
    """cg_offsets for one operand, transcribed: peel off the last dim's index first."""
    off = 0
    for size, stride in zip(reversed(shape), reversed(strides)):
        off += (i % size) * stride
        i //= size
    return off


# out = a.t() + b with b broadcast along rows: three operands, three stride sets.
a = cygrad.arange(12.0).reshape(4, 3)
b = cygrad.tensor([100.0, 200.0, 300.0, 400.0])
at, bb = a.t(), b.expand(3, 4)                 # (3, 4) views: strides (1, 3) and (0, 1)
shape = tuple(at.shape)
out_flat = np.empty(12)
a_flat, b_flat = a.numpy().ravel(), b.numpy()
for i in range(12):                            # every i of the simulated grid
    oo = cg_offsets(shape, (4, 1), i)
    oa = cg_offsets(shape, at.stride(), i)
    ob = cg_offsets(shape, bb.stride(), i)
    out_flat[oo] = a_flat[oa] + b_flat[ob]
cpu = at + b
print("strides: out (4, 1), a.t()", at.stride(), " b.expand", bb.stride())
print("simulated GPU:", out_flat.reshape(3, 4).tolist())
print("cygrad CPU:   ", cpu.tolist())
assert np.array_equal(out_flat.reshape(3, 4), cpu.numpy())

# ---------------------------------------------------------------------------------------
section("4. Coalescing: memory sectors per warp")
# One warp = 32 consecutive i. Count the distinct 32-byte sectors its loads touch.
def sectors(byte_addresses):
    return len({addr // 32 for addr in byte_addresses})


rows, cols = 1024, 1024
warp = range(32)
layouts = {
    "contiguous a[i]": [4 * cg_offsets((rows, cols), (cols, 1), i) for i in warp],
    "transposed a.t()": [4 * cg_offsets((cols, rows), (1, cols), i) for i in warp],
    "broadcast (stride 0)": [4 * cg_offsets((rows, cols), (0, 0), i) for i in warp],
}
for label, addrs in layouts.items():
    print(f"  {label:<22} {sectors(addrs):2d} sector(s) for 32 float32 loads")
print("A transposed read touches one sector per thread (8x the traffic of a coalesced one);\n"
      "that is why GPU libraries copy to a contiguous layout or tile through shared memory.")

# ---------------------------------------------------------------------------------------
section("5. What is not there yet")
print("cygrad.cuda.is_available():", cygrad.cuda.is_available())
try:
    cygrad.zeros(2, device="cuda")
except RuntimeError as e:
    print("cygrad.zeros(2, device='cuda') ->", str(e).splitlines()[0])
