"""The 'cuda' entries of the kernel table, one module per kernel family.

Each module here (``elementwise.py``, ``reduction.py`` ...) launches the kernels
of one ``cuda_src/<family>.cu`` file and defines:

- ``PRIMITIVES``: the names of the primitives it gives a 'cuda' kernel;
- ``register()``: registers them with ``cygrad._core.dispatch``.

:func:`register_all` finds the modules with pkgutil, so a new family file is
picked up without touching this one; :func:`cygrad.cuda.tensors.install` calls
it once, when the first CUDA tensor is made.

Examples
--------
>>> from cygrad.cuda import ops
>>> isinstance(ops.family_modules(), list)
True
"""
import importlib
import pkgutil


def family_modules():
    """The family modules of this package, sorted by name.

    Examples
    --------
    >>> from cygrad.cuda.ops import family_modules
    >>> all(hasattr(m, "register") for m in family_modules())
    True
    """
    mods = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if not hasattr(mod, "register") or not hasattr(mod, "PRIMITIVES"):
            # a silently missing family would make its kernels vanish
            raise RuntimeError(f"cygrad/cuda/ops/{info.name}.py defines no register()/PRIMITIVES")
        mods.append(mod)
    return mods


def register_all():
    """Register every family's 'cuda' kernels; returns the primitives registered.

    Examples
    --------
    >>> from cygrad.cuda.ops import register_all
    >>> isinstance(register_all(), tuple)
    True
    """
    names = []
    for mod in family_modules():
        mod.register()
        names.extend(mod.PRIMITIVES)
    return tuple(names)
