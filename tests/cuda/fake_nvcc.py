"""A stand-in ``nvcc`` for tests/cuda/test_pycuda_driver.py (installed as an
executable script named ``nvcc`` on PATH). Appends its arguments to
``$FAKE_NVCC_LOG``; ``-cubin``/``-ptx`` write a small image naming the
architecture; ``$FAKE_NVCC_MAX_ARCH`` makes newer ``-arch=sm_XY`` fail, as an
nvcc older than the device would."""
import os
import re
import sys

args = sys.argv[1:]
with open(os.environ["FAKE_NVCC_LOG"], "a") as log:
    log.write(" ".join(args) + "\n")
if "--version" in args:
    print("Cuda compilation tools, release 99.9, V99.9.1 (fake)")
    sys.exit(0)
if "--list-gpu-arch" in args:
    print("\n".join(f"compute_{a}" for a in (75, 80, 86, 89, 90)))
    sys.exit(0)
arch = next(a.split("=", 1)[1] for a in args if a.startswith("-arch="))
limit = int(os.environ.get("FAKE_NVCC_MAX_ARCH", "999"))
if int(re.sub(r"\D", "", arch)) > limit:
    print(f"nvcc fatal   : Unsupported gpu architecture '{arch}'", file=sys.stderr)
    sys.exit(1)
out = args[args.index("-o") + 1]
kind = "cubin" if "-cubin" in args else "ptx"
with open(out, "w") as f:
    f.write(f"fake {kind} for {arch} of {args[-1]}\n")
