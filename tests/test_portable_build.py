"""A portable build (the default, and every wheel) runs on any x86-64 CPU.

The hot loops have AVX2 and AVX-512 variants chosen at load time
(``cygrad/_core/cpu/isa.h``); everything else must be baseline x86-64. An
AVX instruction anywhere else would kill the process with SIGILL on an older
CPU, so this reads the machine code of every extension and checks that
VEX/EVEX-encoded instructions (the ``v``-prefixed mnemonics) occur only in the
variant functions gcc names ``*.arch_x86_64_v3`` / ``*.arch_x86_64_v4``.
"""
import glob
import os
import platform
import re
import shutil
import subprocess
import sys

import pytest

from cygrad import info
from cygrad._core import tensor as _C

_FLAGS = info._build_flags() or {}
_PORTABLE = bool(_FLAGS.get("dispatch"))
portable_only = pytest.mark.skipif(
    not _PORTABLE, reason="this build targets one CPU (CYGRAD_ARCH set): it has no variants")

_FUNC = re.compile(r"^[0-9a-f]+ <(?P<name>[^>]+)>:$")
_VEX = re.compile(r"^\s*[0-9a-f]+:\s+v[a-z0-9]+\s")


def _vector_code_outside_variants(path):
    """Functions of the shared object at ``path`` that use AVX outside a variant."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True, check=True).stdout
    bad, current = set(), None
    for line in out.splitlines():
        m = _FUNC.match(line)
        if m:
            current = m.group("name")
        elif _VEX.match(line) and ".arch_x86_64_v" not in (current or ""):
            bad.add(current)
    return bad


@portable_only
@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs binutils' objdump")
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the variants are x86-64's")
def test_no_avx_outside_the_variants():
    core = os.path.dirname(_C.__file__)
    libs = sorted(glob.glob(os.path.join(core, "*.so")))
    assert libs, core
    found = {os.path.basename(p): sorted(_vector_code_outside_variants(p)) for p in libs}
    assert not any(found.values()), found


@portable_only
@pytest.mark.skipif(shutil.which("nm") is None, reason="needs binutils' nm")
def test_hot_loops_have_three_variants():
    symbols = subprocess.run(["nm", _C.__file__], capture_output=True, text=True,
                             check=True).stdout
    for loop in ("bin_f32", "un_f64", "sum_f32", "max_f64"):
        for suffix in ("default", "arch_x86_64_v3", "arch_x86_64_v4"):
            assert f" {loop}.{suffix}\n" in symbols, (loop, suffix)


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


@portable_only
@pytest.mark.skipif(_cpu_flags() is None, reason="needs /proc/cpuinfo (Linux)")
def test_active_variant_matches_the_cpu():
    # x86-64-v3 needs (among others) AVX2, FMA, BMI2; v4 adds AVX-512 F/BW/CD/DQ/VL.
    flags = _cpu_flags()
    v3 = {"avx", "avx2", "fma", "bmi1", "bmi2", "movbe", "f16c"} <= flags
    v4 = v3 and {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"} <= flags
    expected = ("x86-64-v4 (AVX-512)" if v4 else "x86-64-v3 (AVX2, FMA)" if v3
                else "x86-64 baseline")
    assert _C._kernel_variant() == expected


def test_info_names_the_variants():
    out = subprocess.run([sys.executable, "-m", "cygrad.info"], capture_output=True,
                         text=True, check=True).stdout
    if _PORTABLE:
        assert "x86-64-v3 (AVX2, FMA), x86-64-v4 (AVX-512); chosen at load time" in out
        assert f"active here:            {_C._kernel_variant()}" in out
    else:
        assert "kernel variants:        none (built for one CPU" in out
