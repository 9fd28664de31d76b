"""Report how cygrad was built and what it can use on this machine.

Run it as a module; paste its output into bug reports::

    python -m cygrad.info

Examples
--------
>>> from cygrad.info import collect
>>> info = collect()
>>> sorted(info)[:3]
['build_flags', 'cuda', 'cuda_device_count']
"""
import platform
import sys


def _build_flags():
    """The flags ``setup.py`` recorded at build time, or None if it never ran here."""
    try:
        from cygrad._build_config import BUILD_FLAGS
    except ImportError:
        return None
    return dict(BUILD_FLAGS)


def _kernel_variant():
    """Which compiled variant of the hot CPU loops this machine runs, or None
    for a build made for one CPU (``CYGRAD_ARCH=native``)."""
    from cygrad._core import tensor as _C
    return _C._kernel_variant()


def _version_of(module_name):
    try:
        return __import__(module_name).__version__
    except Exception:
        return "not installed"


def collect():
    """Gather everything :func:`main` prints, as a dict (handy for tests and tools).

    Examples
    --------
    >>> from cygrad.info import collect
    >>> collect()["num_threads"] >= 1
    True
    """
    import numpy as np

    import cygrad

    reason = cygrad.cuda._unavailable_reason()
    return {
        "cygrad": cygrad.__version__,
        "python": f"{platform.python_version()} ({sys.executable})",
        "platform": platform.platform(),
        "numpy": np.__version__,
        "ml_dtypes": _version_of("ml_dtypes"),
        "build_flags": _build_flags(),
        "kernel_variant": _kernel_variant(),
        "num_threads": cygrad.get_num_threads(),
        "threading": cygrad._threading.policy(),
        "host_allocator": cygrad.memory.host_stats(),
        "cuda": reason is None,
        "cuda_reason": reason,
        "cuda_device_count": cygrad.cuda.device_count(),
    }


def _format_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def _threading_lines(policy):
    """The threading policy: one thread budget for cygrad's kernels and the BLAS."""
    lines = [f"Threads:          {policy['num_threads']} intra-op (cygrad's kernels and BLAS "
             f"together), {policy['num_interop_threads']} inter-op"
             + (" (worker process: starts with 1)" if policy["worker_process"] else "")]
    lines.append(f"  BLAS:           {policy['blas'] or 'not an OpenBLAS found here: not limited'}")
    mins = ", ".join(f"{k} {v:,}" for k, v in policy["parallel_min"].items())
    lines.append(f"  parallel from:  {mins} elements; matrix products from "
                 f"{policy['blas_parallel_min']:,} multiply-adds")
    lines.append("  idle workers:   poll for 50 µs after an op, then sleep (no long spinning)")
    return lines


def format_report(info):
    """Turn :func:`collect`'s dict into the text :func:`main` prints.

    Examples
    --------
    >>> from cygrad.info import collect, format_report
    >>> format_report(collect()).splitlines()[0].startswith("cygrad version:")
    True
    """
    lines = [
        f"cygrad version:   {info['cygrad']}",
        f"Python version:   {info['python']}",
        f"Platform:         {info['platform']}",
        f"NumPy version:    {info['numpy']}",
        f"ml_dtypes:        {info['ml_dtypes']}",
    ]
    flags = info["build_flags"]
    if flags is None:
        lines.append("Build flags:      unknown (cygrad/_build_config.py missing; "
                     "it is written by setup.py when the extensions are built)")
    else:
        lines.append("Build flags:")
        lines.append(f"  arch (CYGRAD_ARCH):     {flags.get('arch') or '(compiler default)'}")
        if flags.get("dispatch"):
            lines.append("  kernel variants:        x86-64 baseline, x86-64-v3 (AVX2, FMA), "
                         "x86-64-v4 (AVX-512); chosen at load time")
            lines.append(f"  active here:            {info['kernel_variant']}")
        else:
            lines.append("  kernel variants:        none (built for one CPU; "
                         "may not run on another machine)")
        lines.append(f"  debug (CYGRAD_DEBUG):   {flags.get('debug')}")
        lines.append(f"  cflags:  {' '.join(flags.get('cflags', []))}")
        lines.append(f"  ldflags: {' '.join(flags.get('ldflags', []))}")
    lines.extend(_threading_lines(info["threading"]))
    lines.append("Host allocator:")
    for key, value in info["host_allocator"].items():
        shown = _format_bytes(value) if key.endswith(("bytes", "limit")) else value
        lines.append(f"  {key + ':':<22}{shown}")
    if info["cuda"]:
        lines.append(f"CUDA available:   yes ({info['cuda_device_count']} device(s))")
    else:
        lines.append("CUDA available:   no")
        lines.append(f"  reason: {info['cuda_reason']}")
    return "\n".join(lines)


def main():
    print(format_report(collect()))


if __name__ == "__main__":
    main()
