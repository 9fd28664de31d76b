"""Build script for cygrad's Cython core.

Environment knobs (all optional):
  CYGRAD_ARCH      -march value for the whole build. Unset (the default, and how wheels
                   are built): portable, the x86-64 baseline, with the hot loops compiled
                   also for x86-64-v3 (AVX2) and x86-64-v4 (AVX-512) and chosen at load
                   time (cygrad/_core/cpu/isa.h). "native" (or any -march value): every
                   kernel for that CPU only, no run-time choice; the result may not run
                   on another machine.
  CYGRAD_DEBUG     "1" builds with -O0 -g and Cython bounds checks
  CYGRAD_SANITIZE  "address" builds with AddressSanitizer + UndefinedBehaviorSanitizer
                   (-O1 -g); run it with libasan preloaded: see docs/memory_safety.md
"""
import os
import platform
import sys

import numpy as np
from Cython.Build import cythonize
import glob
import shutil

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ARCH = os.environ.get("CYGRAD_ARCH", "")
DEBUG = os.environ.get("CYGRAD_DEBUG", "0") == "1"
SANITIZE = os.environ.get("CYGRAD_SANITIZE", "")
if SANITIZE not in ("", "address"):
    sys.exit(f"CYGRAD_SANITIZE={SANITIZE!r}: the only value is 'address' (ASan + UBSan)")

if DEBUG:
    compile_args = ["-O0", "-g"]
elif SANITIZE:
    # -O1 keeps the reports' stacks readable and the build fast; the frame pointer
    # gives ASan cheap, complete stack traces.
    compile_args = ["-O1", "-g", "-fno-omit-frame-pointer"]
else:
    compile_args = ["-O3"]
# -fno-math-errno lets gcc call glibc's vector math (libmvec) for exp/tanh/...;
# it does not change NaN/inf/signed-zero results, unlike -ffast-math.
compile_args += ["-fno-math-errno", "-Wno-unused-function"]
# Scalar loop tails. gcc otherwise runs the last few elements of a vectorised loop
# (with -march=native on AVX-512: fewer than 8 doubles) through a narrower libmvec
# call whose spare lanes hold stale register contents; the result of the real
# lanes then differed in the last bit from one call to the next (whether the
# stale lanes sent libmvec down its scalar fallback). Same values, different
# results: gradcheck's reentrancy check caught it. A scalar tail is deterministic.
if not os.environ.get("CC", "").endswith("clang"):
    compile_args += ["--param=vect-partial-vector-usage=0", "--param=vect-epilogues-nomask=0"]
if ARCH:
    compile_args.append(f"-march={ARCH}")
    DISPATCH = False
else:
    # gcc's target_clones makes the variants; elsewhere the hot loops are baseline.
    DISPATCH = (platform.machine() in ("x86_64", "AMD64")
                and not os.environ.get("CC", "").endswith("clang"))
    if DISPATCH:
        # -Wno-psabi: gcc notes that the 64-byte vector types of reduce.c are passed
        # differently with AVX-512; they never cross a function boundary we export.
        compile_args += ["-DCG_DISPATCH", "-Wno-psabi"]
link_args = ["-lm"]
if sys.platform.startswith("linux"):
    link_args.append("-lmvec")
# The kernels' thread pool (cygrad/_core/cpu/parallel.c) is plain pthreads, not
# OpenMP: see that file for why.
compile_args.append("-pthread")
link_args.append("-pthread")
if SANITIZE:
    # Linked into the extensions too, so they need libasan; the interpreter is not
    # instrumented, hence LD_PRELOAD at run time (tests/stress/run_sanitized.sh).
    sanitizers = "-fsanitize=address,undefined"
    compile_args.append(sanitizers)
    link_args.append(sanitizers)

BUILD_FLAGS = {"arch": ARCH or "x86-64 baseline", "dispatch": DISPATCH, "debug": DEBUG, "sanitize": SANITIZE,
               "cflags": compile_args, "ldflags": link_args}

CPU_SOURCES = ["cygrad/_core/cpu/elementwise.c", "cygrad/_core/cpu/reduce.c",
               "cygrad/_core/cpu/parallel.c", "cygrad/_core/cpu/isa.c"]


def ext(name, extra_sources=()):
    return Extension(
        f"cygrad._core.{name}",
        [f"cygrad/_core/{name}.pyx", *extra_sources],
        include_dirs=[np.get_include(), "cygrad/_core/cpu"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )


extensions = [
    ext("dtype"),
    ext("storage"),
    ext("tensor", CPU_SOURCES),
    ext("engine"),
    ext("dlpack"),
    ext("conv_kernels", ["cygrad/_core/cpu/conv.c", "cygrad/_core/cpu/conv_gemm.c"]),
    ext("fastpath", ["cygrad/_core/cpu/fastpath.c"]),
    ext("special_kernels", ["cygrad/_core/cpu/special.c"]),
    ext("gemm"),
    ext("optim_kernels", ["cygrad/_core/cpu/optim.c"]),
    ext("rnn_kernels", ["cygrad/_core/cpu/rnn.c"]),
    ext("scatter_kernels", ["cygrad/_core/cpu/scatter.c"]),
    ext("fused_kernels", ["cygrad/_core/cpu/fused.c"]),
    ext("scan_kernels", ["cygrad/_core/cpu/scan.c"]),
    ext("alloc_stats"),
    ext("alloc_fast"),
    ext("launch_fast"),
]

# Record how the extensions were built so `python -m cygrad.info` can report it.
with open(os.path.join("cygrad", "_build_config.py"), "w") as f:
    f.write("# Generated by setup.py; do not edit.\n")
    f.write(f"BUILD_FLAGS = {BUILD_FLAGS!r}\n")

class BuildPyWithKernels(build_py):
    """Also put cuda_src/*.cu and *.cuh into the package (cygrad/cuda/kernels_src/), so an
    installed wheel can load its CUDA kernels; a source checkout reads cuda_src/."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "cygrad", "cuda", "kernels_src")
        os.makedirs(target, exist_ok=True)
        for path in glob.glob(os.path.join("cuda_src", "*.cu*")):     # kernels and headers
            shutil.copy(path, target)


setup(
    cmdclass={"build_py": BuildPyWithKernels},
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "embedsignature": True,
        },
    ),
)
