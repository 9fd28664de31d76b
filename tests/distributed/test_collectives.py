"""The collectives on 2 ranks, and on 4 ranks sharing the cores (``--oversubscribe``),
against NumPy: one MPI job per rank count runs every check of ``checks_collectives.py``."""
import pytest

import checks_collectives
from _harness import assert_check, check_names, mpi_or_skip, run_checks

CHECKS = check_names(checks_collectives)


@pytest.fixture(scope="module", params=[2, 4], ids=["2ranks", "4ranks"])
def job(request, tmp_path_factory):
    mpi_or_skip()
    return run_checks("checks_collectives", request.param,
                      tmp_path_factory.mktemp(f"collectives{request.param}"))


@pytest.mark.parametrize("name", CHECKS)
def test_collective(job, name):
    assert_check(job, name)
