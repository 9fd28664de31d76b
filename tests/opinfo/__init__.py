"""The op table: ``op_db`` is every ``OPS`` row from every module in this package.

Modules are found with pkgutil, so a new family file (``tests/opinfo/<family>.py``
defining ``OPS = [...]``) is picked up without touching this file.  An import
error, or a family module without ``OPS``, fails loudly: a silently missing
family would make its tests vanish.
"""
import importlib
import os
import pkgutil

from .core import OpInfo

# the per-row autograd declarations; a family module may set their defaults in a dict
# ``AUTOGRAD_DEFAULTS`` (rows then only spell out their exceptions)
AUTOGRAD_FLAGS = ("supports_autograd", "supports_forward_ad", "supports_gradgrad",
                  "supports_inplace")

_INFRA_MODULES = {"core"}      # and every module whose name starts with "_"


def _collect():
    db = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name in _INFRA_MODULES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        ops = getattr(module, "OPS", None)
        if ops is None:
            raise RuntimeError(f"tests/opinfo/{info.name}.py defines no OPS list")
        defaults = getattr(module, "AUTOGRAD_DEFAULTS", {})
        unknown = set(defaults) - set(AUTOGRAD_FLAGS)
        if unknown:
            raise RuntimeError(f"tests/opinfo/{info.name}.py: AUTOGRAD_DEFAULTS names {sorted(unknown)}")
        for row in ops:
            if not isinstance(row, OpInfo):
                raise TypeError(f"tests/opinfo/{info.name}.py: OPS holds {row!r}, not an OpInfo")
            row.family = info.name
            row.resolve_autograd_flags(defaults)
        db.extend(ops)
    ids = [op.id for op in db]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise RuntimeError(f"duplicate OpInfo ids {dupes}: give one row a variant=")
    return db


op_db = _collect()

# OPINFO_FAMILY=elementwise,linalg restricts the generated tests to those families
# (handy while working on one; the full run uses every row).
_only = [f for f in os.environ.get("OPINFO_FAMILY", "").split(",") if f]
if _only:
    unknown = set(_only) - {op.family for op in op_db}
    if unknown:
        raise RuntimeError(f"OPINFO_FAMILY names no tests/opinfo module: {sorted(unknown)}")
    op_db = [op for op in op_db if op.family in _only]
