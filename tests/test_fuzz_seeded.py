"""The seeded fuzz run of CI (tests/fuzz, docs/fuzzing.md).

A fixed set of cases runs in child processes.  No case may crash the process or
hang.  Every other failure (wrong value, dtype, shape, exception type, cygrad
raising where PyTorch returns or the reverse) must belong to a class listed in
``tests/fuzz/known_failures.json``; that file may only shrink: each listed
class's reproducer is re-run and must still fail the same way, so a fixed
class has to be deleted from it (and a new failure fails CI).
"""
import os

import pytest

from fuzz.generate import make_case
from fuzz.runner import is_failure, load_known, reproducer, run_cases

SEEDS = (0, 1)
CASES_PER_SEED = 1000


def _torch_available():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def seeded_verdicts():
    cases = [make_case(seed, i) for seed in SEEDS for i in range(CASES_PER_SEED)]
    return run_cases(cases, use_torch=_torch_available(), case_timeout=30.0)


def _describe(verdicts):
    return "\n\n".join(f"[{v['class']}] {v.get('cy_outcome') or v.get('detail')}\n"
                       f"{reproducer(v['case'])}\n{v.get('stderr') or ''}" for v in verdicts)


def test_cases_are_deterministic():
    assert make_case(0, 17) == make_case(0, 17)
    assert make_case(0, 17) != make_case(1, 17)


def test_no_crashes_or_hangs(seeded_verdicts):
    bad = [v for v in seeded_verdicts if v["kind"] in ("crash", "hang", "harness_error")]
    assert not bad, _describe(bad)


def test_every_case_was_judged(seeded_verdicts):
    assert len(seeded_verdicts) == len(SEEDS) * CASES_PER_SEED
    kinds = {v["kind"] for v in seeded_verdicts}
    assert "ok" in kinds


def test_no_new_failure_classes(seeded_verdicts):
    if not _torch_available():
        pytest.skip(reason="the known failure classes are judged against PyTorch, which is not installed")
    known = load_known()
    new = {}
    for v in seeded_verdicts:
        if is_failure(v) and v["class"] not in known:
            new.setdefault(v["class"], v)
    assert not new, f"{len(new)} new fuzz failure classes:\n\n" + _describe(new.values())


def test_known_failures_still_fail():
    """The known-failures file only shrinks: a class that no longer fails must be removed."""
    if not _torch_available():
        pytest.skip(reason="the known failure classes are judged against PyTorch, which is not installed")
    known = load_known()
    verdicts = run_cases([entry["case"] for entry in known.values()], case_timeout=30.0)
    fixed = [f"{key} (now: {v['class']})" for key, v in zip(known, verdicts) if v["class"] != key]
    assert not fixed, ("these classes no longer fail as recorded; run "
                       "`python -m tests.fuzz --refresh-known` to update "
                       f"{os.path.join('tests', 'fuzz', 'known_failures.json')}: {fixed}")
