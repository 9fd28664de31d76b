"""Which op-table rows run complex on the CPU but raise on the (emulated) CUDA
device: the sweep behind docs/cuda.md's "Complex sweep of the op table".

Every row of ``tests/opinfo`` runs in complex64 and complex128 (rows that do
not list complex dtypes too). Where the CPU returns a result for the row's first
sample, the row's values are compared on the device with
``device_axis.check_values`` (complex64 at float32's tolerances, complex128 at
float64's). Prints the count of each outcome and each row-dtype pair that
raised a missing kernel or disagreed; with a path argument, also writes every
outcome there as JSON.

Run from the repository root (about a minute with a warm kernel cache)::

    CYGRAD_CUDA=emulate python tests/cuda/complex_sweep.py [out.json]
"""
import collections
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(os.path.dirname(HERE)), os.path.dirname(HERE), HERE]

import cygrad  # noqa: E402
import device_axis as axis  # noqa: E402
from fake_driver import installed  # noqa: E402
from opinfo import op_db  # noqa: E402

_REAL = {"complex64": cygrad.float32, "complex128": cygrad.float64}
_tolerances = axis.tolerances


def _complex_tolerances(op_info, dtype, grad=False):
    return _tolerances(op_info, _REAL.get(dtype.name, dtype), grad)


def _has_complex(values):
    return any(isinstance(v, cygrad.Tensor) and v.dtype.is_complex for v in values)


def outcome(op, dtype):
    """'cpu-raises', 'ok', ('missing', message) or ('fail', message) for one row and dtype."""
    try:
        samples = axis.value_samples(op, dtype)
    except Exception as e:                         # noqa: BLE001 - the row has no such samples
        return "no-samples", type(e).__name__
    if not samples:
        return "no-samples", ""
    inp, args, kwargs = axis.arguments(samples[0], "cpu")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = axis.op_of(op)(inp, *args, **kwargs)
    except Exception as e:                         # noqa: BLE001 - counted, not raised
        return "cpu-raises", type(e).__name__
    if not _has_complex([inp, *args]) and not _has_complex(axis.flat(out)):
        return "cpu-not-complex", ""
    try:
        axis.check_values(op, dtype)
    except axis.MissingKernel as e:
        return "missing", str(e)
    except Exception as e:                         # noqa: BLE001 - a disagreement, reported
        return "fail", f"{type(e).__name__}: {str(e)[:300]}"
    return "ok", ""


def main(path=None):
    from cygrad.cuda._driver.emulated import EmulatedDriver
    axis.tolerances = _complex_tolerances
    results = {}
    with installed(EmulatedDriver(memory=1 << 30)):
        for op in op_db:
            for dtype in (cygrad.complex64, cygrad.complex128):
                results[f"{op.id}-{dtype.name}"] = outcome(op, dtype)
    print(dict(collections.Counter(kind for kind, _ in results.values())))
    for key, (kind, message) in results.items():
        if kind in ("missing", "fail"):
            print(key, kind, message.splitlines()[0][:200] if message else "")
    if path:
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:2])
