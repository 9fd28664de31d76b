"""Shared test setup: ``tests/`` on sys.path (so ``from opinfo import op_db`` works in
every import mode), a seeded ``rng`` fixture, a ``default_dtype_guard`` fixture, and hypothesis profiles."""
import os
import sys

import numpy as np
import pytest

_TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

try:
    from hypothesis import HealthCheck, settings
except ImportError:     # hypothesis is a test extra; property tests importorskip it
    pass
else:
    settings.register_profile("default", deadline=None, max_examples=60,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("thorough", deadline=None, max_examples=1000,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def rng():
    """A fresh, seeded generator per test, so failures reproduce."""
    return np.random.default_rng(12345)


@pytest.fixture
def default_dtype_guard():
    """Use in tests that call ``set_default_dtype``: restores the previous default."""
    import cygrad
    saved = cygrad.get_default_dtype()
    yield
    cygrad.set_default_dtype(saved)


# The CI's wheel stage runs this suite against cygrad installed from a wheel, in a
# copy of the repository without the package's sources. Tests that read the
# checkout itself (setup.cfg's package list, source files, the course's lesson
# sources) are marked ``needs_checkout`` and skipped there: the editable-install
# run before it covers them.
_REPO_DIR = os.path.dirname(_TESTS_DIR)


def _cygrad_is_the_checkout():
    import cygrad
    return os.path.dirname(os.path.abspath(cygrad.__file__)) == os.path.join(_REPO_DIR, "cygrad")


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_checkout: reads the repository's own source files")
    # The thread pool marks itself contended when the calling thread is preempted
    # (cpu/parallel.c): on a loaded CI machine that would switch tests between the
    # pool's quiet and contended paths at random. Results are the same on both (the
    # threading tests check that), but tests that count which path ran need one;
    # the detector itself is tested with it switched back on
    # (tests/test_threading.py).
    from cygrad._core import tensor as C
    C._set_preemption_check(False)


def pytest_collection_modifyitems(config, items):
    if _cygrad_is_the_checkout():
        return
    skip = pytest.mark.skip(reason="reads the source checkout, and this run tests cygrad "
                                   "installed from a wheel (site-packages); the "
                                   "editable-install run covers it")
    for item in items:
        if item.get_closest_marker("needs_checkout"):
            item.add_marker(skip)
