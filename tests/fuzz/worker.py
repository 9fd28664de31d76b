"""The child process: runs a batch of cases, one JSON line per case on a private pipe.

Started by ``runner.py`` as ``python -c ... worker.main(batch_file, start, fd)``.
Before each case it writes ``S <index>`` and after it ``R <json>``, flushing
both, so the parent knows which case was running when the child died (crash)
or stopped answering (hang).  The process's address space is capped so a
huge allocation fails instead of exhausting the machine; stdout is pointed at
stderr so nothing an op prints can corrupt the protocol.
"""
from __future__ import annotations

import faulthandler
import json
import math
import os
import resource
import sys
import traceback
import warnings

import numpy as np

from .compare import classify

ADDRESS_SPACE_LIMIT = 6 << 30


def _execute(code, namespace):
    try:
        exec(code, namespace)
    except Exception as exc:    # the exception is the outcome being judged
        return ("raise", exc)
    return ("ok", namespace.get("out"))


def _namespace(lib_module):
    return {"T": lib_module, "np": np, "nan": math.nan, "inf": math.inf}


def _ref_function(ref_id):
    from opinfo import op_db
    for row in op_db:
        if row.id == ref_id:
            return row.ref
    raise KeyError(ref_id)


def run_case(case, torch_module, cygrad_module):
    """Verdict dict for one case (``torch_module`` None: NumPy reference or none)."""
    cy = _execute(case["cy"], _namespace(cygrad_module))
    if case.get("first_only") and cy[0] == "ok" and isinstance(cy[1], tuple) and cy[1]:
        cy = ("ok", cy[1][0])
    ref_lib = None
    if torch_module is not None and case.get("th"):
        torch_module.manual_seed(0)
        ref = _execute(case["th"], _namespace(torch_module))
        ref_lib = "th"
        if case.get("first_only") and ref[0] == "ok" and isinstance(ref[1], tuple) and ref[1]:
            ref = ("ok", ref[1][0])     # indices are ambiguous under ties: values only
    elif case.get("np") and case.get("ref"):
        ns = _namespace(cygrad_module)
        ns["REF"] = _ref_function(case["ref"])
        with np.errstate(all="ignore"):
            ref = _execute(case["np"], ns)
        ref_lib = "np"
    if ref_lib is None:
        kind, detail = "unchecked", ""
        types = f"{type(cy[1]).__name__}/?" if cy[0] == "raise" else ""
    else:
        try:
            kind, detail, types = classify(cy, ref, case.get("values", True), ref_lib,
                                           case.get("tol_dtype"))
        except Exception as exc:     # an unconvertible result is itself a finding
            kind, detail, types = "wrong_type", f"compare failed: {type(exc).__name__}: {exc}", ""
    if (kind == "cy_raised" and ref_lib == "th" and case["th"] != case["cy"]
            and "view size is not compatible" in str(cy[1])):
        # PyTorch has no negative-step slice; its code uses flip(), a contiguous copy,
        # where cygrad has a strided view that view() may rightly refuse.
        kind, detail = "unchecked", "view of a negative-step slice (PyTorch ran on a flip() copy)"
    verdict = {"kind": kind, "detail": detail, "types": types, "ref": ref_lib}
    if kind not in ("ok", "unchecked"):
        verdict["cy_outcome"] = _describe(cy)
        verdict["ref_outcome"] = _describe(ref)
    return verdict


def _describe(outcome):
    status, value = outcome
    if status == "raise":
        return f"{type(value).__name__}: {str(value)[:300]}"
    try:
        text = repr(value)
    except Exception as exc:   # printing is not what is judged here
        text = f"<unprintable {type(value).__name__}: {type(exc).__name__}>"
    return text[:300]


def main(batch_file, start, fd, use_torch=True):
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
    faulthandler.enable(file=sys.stderr)
    warnings.simplefilter("ignore")
    proto = os.fdopen(fd, "w", buffering=1)
    sys.stdout = sys.stderr
    import cygrad
    torch_module = None
    if use_torch:
        try:
            import torch as torch_module
        except ImportError:
            torch_module = None
    with open(batch_file) as f:
        cases = [json.loads(line) for line in f]
    proto.write(f"H {'th' if torch_module is not None else 'np'}\n")
    for i in range(start, len(cases)):
        proto.write(f"S {i}\n")
        try:
            verdict = run_case(cases[i], torch_module, cygrad)
        except BaseException:
            verdict = {"kind": "harness_error", "detail": traceback.format_exc()[-500:],
                       "types": ""}
        verdict["index"] = i
        proto.write("R " + json.dumps(verdict) + "\n")
    proto.write("D\n")
    proto.close()
