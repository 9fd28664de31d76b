"""The portable build against a build for this CPU only (``CYGRAD_ARCH=native``).

A wheel is built for the x86-64 baseline, with its hot loops compiled also for
AVX2 and AVX-512 and picked at load time (``cygrad/_core/cpu/isa.h``). This
script measures what that costs: it builds a second copy of the extensions with
``-march=native`` in a scratch directory, then runs the cygrad column of
``bench/run.py`` for both builds, alternating between them for several rounds
(the machine's noise hits both alike), and prints each case's best time per
build and the ratio portable / native (above 1.00x: the portable build is
slower).

Usage::

    python bench/arch_variants.py                  # every case, 3 rounds
    python bench/arch_variants.py -k exp -r 5      # cases whose name contains "exp"
    python bench/arch_variants.py --native-tree /tmp/cg-native   # reuse a build

The portable build is the ``cygrad`` this interpreter imports (check with
``python -m cygrad.info``: "kernel variants ... chosen at load time").
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def build_native(tree, jobs):
    """Copy the repository's files (tracked, or new and not ignored) to ``tree`` and
    build its extensions there with -march=native."""
    files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    os.makedirs(tree, exist_ok=True)
    tar = subprocess.Popen(["tar", "-cf", "-", *files], cwd=REPO, stdout=subprocess.PIPE)
    subprocess.run(["tar", "-xf", "-", "-C", tree], stdin=tar.stdout, check=True)
    tar.wait()
    env = dict(os.environ, CYGRAD_ARCH="native")
    print(f"building the native copy in {tree} (CYGRAD_ARCH=native) ...", flush=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace", "-j", str(jobs)],
                   cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)


def run_once(pythonpath, filter_, quick, out_json):
    """One ``bench/run.py`` run of the cygrad column with ``pythonpath`` first on sys.path."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, os.path.join(HERE, "run.py"), "--libs", "cygrad", "--no-progress",
           "--json", out_json, "-k", filter_]
    if quick:
        cmd.append("--quick")
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    with open(out_json) as f:
        data = json.load(f)
    return {r["name"]: r["seconds"]["cygrad"] for r in data["results"]
            if r["seconds"].get("cygrad")}


def variant_of(pythonpath):
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    code = ("from cygrad._core import tensor as C; from cygrad import info; "
            "print(C._kernel_variant() or 'none: built for this CPU ('"
            " + info._build_flags()['arch'] + ')')")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-k", "--filter", default="", help="only cases whose name contains this")
    p.add_argument("-r", "--rounds", type=int, default=3, help="alternating rounds per build")
    p.add_argument("--quick", action="store_true", help="bench/run.py --quick sizes")
    p.add_argument("--native-tree", default="",
                   help="a directory holding (or to receive) the native build")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2,
                   help="compile jobs for the native build")
    args = p.parse_args(argv)

    tree = args.native_tree or os.path.join(tempfile.gettempdir(), "cygrad-native-build")
    if not os.path.exists(os.path.join(tree, "cygrad", "_build_config.py")):
        build_native(tree, args.jobs)
    print(f"portable build: {variant_of('')}")
    print(f"native build:   {variant_of(tree)}  ({tree})")

    best = {"portable": {}, "native": {}}
    out_json = os.path.join(tempfile.gettempdir(), "cygrad-arch-variants.json")
    for r in range(args.rounds):
        for build, path in (("portable", REPO), ("native", tree)):
            print(f"round {r + 1}/{args.rounds}: {build}", flush=True)
            for name, t in run_once(path, args.filter, args.quick, out_json).items():
                best[build][name] = min(t, best[build].get(name, math.inf))

    names = [n for n in best["portable"] if n in best["native"]]
    width = max((len(n) for n in names), default=10)
    print(f"\n{'case':<{width}}  {'portable':>11}  {'native':>11}  portable/native")
    logs = []
    for n in names:
        a, b = best["portable"][n], best["native"][n]
        logs.append(math.log(a / b))
        print(f"{n:<{width}}  {a * 1e6:9.1f}us  {b * 1e6:9.1f}us  {a / b:6.2f}x")
    if logs:
        print(f"\ngeometric mean over {len(logs)} cases: {math.exp(sum(logs) / len(logs)):.3f}x;"
              f" worst {math.exp(max(logs)):.2f}x, best {math.exp(min(logs)):.2f}x")


if __name__ == "__main__":
    main()
