"""DistributedDataParallel on 2 ranks: every check of ``checks_ddp.py`` in one MPI job."""
import pytest

import checks_ddp
from _harness import assert_check, check_names, mpi_or_skip, run_checks

CHECKS = check_names(checks_ddp)


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    mpi_or_skip()
    return run_checks("checks_ddp", 2, tmp_path_factory.mktemp("ddp"))


@pytest.mark.parametrize("name", CHECKS)
def test_ddp(job, name):
    assert_check(job, name)
