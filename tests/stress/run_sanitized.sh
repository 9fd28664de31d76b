#!/usr/bin/env bash
# Build cygrad with AddressSanitizer + UndefinedBehaviorSanitizer in a scratch copy
# of this tree and run the stress suite (and the autograd engine and indexing tests)
# against it. Exits non-zero on any test failure and on any sanitizer report, from
# pytest itself or from a subprocess it started. See docs/memory_safety.md.
#
# Usage: bash tests/stress/run_sanitized.sh [pytest args...]
#   With pytest args, they replace the default test selection, e.g.
#   bash tests/stress/run_sanitized.sh tests/stress/test_graph_lifetime.py -k hook
#
# Environment knobs:
#   SANITIZE_PYTHON  interpreter to build and test with; it needs numpy, setuptools,
#                    pytest (Cython is pip-installed into it when missing). Default:
#                    `python` (the active virtual environment).
#   SANITIZE_DIR     scratch directory. Default: a fresh temporary one, removed on
#                    success. Give one to keep it: a rerun then only recompiles the
#                    extensions whose sources changed.
#   SANITIZE_JOBS    parallel compile jobs (default 2).
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
PYTHON="${SANITIZE_PYTHON:-python}"
JOBS="${SANITIZE_JOBS:-2}"
if [[ $# -gt 0 ]]; then
    TESTS=("$@")
else
    # the stress suite, the engine, indexing, the in-place paths (apply_inplace,
    # overwrites), the core's small-operand C loops (_core/fastpath) and tensors of
    # up to 64 dims (every fixed-size geometry array at its limit), the strided select loop,
    # the matrix products cut across the pool, the compiled CUDA allocator and launch
    # path (alloc_fast.pyx with its C-field state, re-entrant frees, free lists and
    # empty hook, launch_fast.pyx, the CUDA optimizers' compiled checks)
    # on the emulated GPU, the row copies of strided views, the pool's quiet/contended
    # thresholds, the scan kernel, the column reductions and the engine's in-place sums
    TESTS=(tests/stress tests/test_autograd_engine.py tests/test_indexing.py
           tests/test_indexing_inplace.py tests/test_overwrite_autograd.py
           tests/test_elementwise_entry.py tests/test_numpy_fastpaths.py
           tests/test_profiler.py tests/test_max_dims.py tests/test_select_kernel.py
           tests/test_gemm.py tests/cuda/test_allocator.py tests/cuda/test_host_path.py
           tests/cuda/test_host_path_compiled.py tests/test_strided_copy.py
           tests/test_threading.py tests/test_scan_kernels.py
           tests/test_column_reductions.py tests/cuda/test_allocator_reentry.py
           tests/test_engine_sums.py
           tests/cuda/test_alloc_state.py tests/cuda/test_host_path_compiled_more.py
           tests/cuda/test_optim.py)
fi

if [[ -n "${SANITIZE_DIR:-}" ]]; then
    WORK="$SANITIZE_DIR"
    KEEP=1
else
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/cygrad-sanitize.XXXXXX")"
    KEEP=0
fi
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
REPORTS="$WORK/sanitizer-reports"

step() { printf '\n---- %s\n' "$*"; }
started=$SECONDS

step "copy of $REPO (tracked and new, non-ignored files, as in the working tree) -> $WORK"
# The sources go to a staging folder first; a file is then copied into the build tree
# only when its content differs, and gets a fresh modification time, so a rerun in a
# kept SANITIZE_DIR recompiles exactly the extensions whose sources changed (even
# when the change is going back to an older version). Build outputs (the .c files
# Cython wrote, the .so files, build/) are kept; other files that are no longer in
# the tree are removed.
STAGE="$WORK/.incoming"
rm -rf "$STAGE"
mkdir -p "$STAGE"
( cd "$REPO" && git ls-files -z --cached --others --exclude-standard ) |
    ( cd "$REPO" && while IFS= read -r -d '' f; do [[ -f "$f" ]] && printf '%s\0' "$f"; done ) |
    tar -C "$REPO" --null -T - -cf - | tar -C "$STAGE" -xf -
( cd "$WORK" && find . \( -path ./.incoming -o -path ./build -o -path ./sanitizer-reports \) -prune -o \
    -type f ! -name '*.so' ! -name build.log -print0 ) |
    while IFS= read -r -d '' f; do
        [[ -e "$STAGE/$f" || ( "$f" == ./cygrad/_core/*.c && "$f" != ./cygrad/_core/cpu/* ) ]] || rm -f "$WORK/$f"
    done
( cd "$STAGE" && find . -type f -print0 ) |
    while IFS= read -r -d '' f; do
        if ! cmp -s "$STAGE/$f" "$WORK/$f"; then
            mkdir -p "$(dirname "$WORK/$f")"
            cp "$STAGE/$f" "$WORK/$f"
        fi
    done
rm -rf "$STAGE"

step "build: CYGRAD_SANITIZE=address $PYTHON setup.py build_ext --inplace -j $JOBS"
"$PYTHON" --version
if ! "$PYTHON" -c "import Cython" 2>/dev/null; then
    "$PYTHON" -m pip install --quiet "Cython>=3.0"
fi
( cd "$WORK" && CYGRAD_SANITIZE=address "$PYTHON" setup.py --quiet build_ext --inplace -j "$JOBS" ) \
    > "$WORK/build.log" 2>&1 || { tail -n 60 "$WORK/build.log"; echo "sanitized build FAILED"; exit 1; }
echo "built in $((SECONDS - started)) s (log: $WORK/build.log)"

LIBASAN="$(gcc -print-file-name=libasan.so)"
LIBUBSAN="$(gcc -print-file-name=libubsan.so)"
for lib in "$LIBASAN" "$LIBUBSAN"; do
    [[ -e "$lib" ]] || { echo "no $lib: install gcc's sanitizer runtimes (libasan, libubsan)"; exit 1; }
done

rm -rf "$REPORTS"
mkdir -p "$REPORTS"
# The interpreter is not instrumented: the runtimes must be loaded before anything
# else, hence LD_PRELOAD. PYTHONMALLOC=malloc sends every Python object through
# ASan's malloc, so a use-after-free of an object (not only of a tensor buffer) is
# caught. Leak detection is off: CPython does not free everything at exit, so LSan
# would report the interpreter's own allocations; leaks of tensors and graphs are
# tested by tests/stress/test_memory.py with weakrefs and RSS instead.
# allocator_may_return_null: an impossible allocation must reach cygrad's
# MemoryError path, as it does without ASan. Reports go to files (one per process,
# subprocesses included), so none is lost in captured output.
export LD_PRELOAD="$LIBASAN $LIBUBSAN${LD_PRELOAD:+ $LD_PRELOAD}"
export PYTHONMALLOC=malloc
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:allocator_may_return_null=1:check_initialization_order=1:detect_stack_use_after_return=1:strict_string_checks=1:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$REPORTS/ubsan"
export CYGRAD_SANITIZER_REPORTS="$REPORTS"
export PYTHONDONTWRITEBYTECODE=1

step "check: the copy imports its sanitized build"
( cd "$WORK" && "$PYTHON" -c '
import os, sys, cygrad
from cygrad._build_config import BUILD_FLAGS
where = os.path.dirname(os.path.dirname(os.path.abspath(cygrad.__file__)))
assert where == os.getcwd(), f"imported cygrad from {where}, not the sanitized copy"
assert BUILD_FLAGS.get("sanitize") == "address", BUILD_FLAGS
print("cygrad", cygrad.__version__, "from", where, "cflags:", " ".join(BUILD_FLAGS["cflags"]))
' )

step "tests: python -m pytest -q -x -p no:cacheprovider ${TESTS[*]}"
status=0
( cd "$WORK" && "$PYTHON" -m pytest -q -x -p no:cacheprovider "${TESTS[@]}" ) || status=$?

shopt -s nullglob
reports=("$REPORTS"/*)
shopt -u nullglob
if [[ ${#reports[@]} -ne 0 ]]; then
    step "${#reports[@]} sanitizer report(s)"
    for r in "${reports[@]}"; do
        printf '== %s\n' "$(basename "$r")"
        cat "$r"
    done
    [[ $status -ne 0 ]] || status=1
fi

printf '\nsanitizer stage: %s in %d s (build + tests)\n' \
    "$([[ $status -eq 0 ]] && echo passed || echo FAILED)" "$((SECONDS - started))"
if [[ $status -eq 0 && $KEEP -eq 0 ]]; then
    rm -rf "$WORK"
elif [[ $status -ne 0 ]]; then
    echo "scratch tree kept for inspection: $WORK"
fi
exit "$status"
