"""How much of PyTorch's public API cygrad provides: ``python -m cygrad.api_coverage``.

The script compares every public name of the PyTorch namespaces listed in
``NAMESPACES`` with cygrad's, live, and writes ``docs/api_coverage.md``. It needs
PyTorch installed (it reads PyTorch's names from the installed package).

Definitions (the document repeats them):

- **PyTorch's names** in a namespace: its ``__all__`` when the module declares one
  (with the C functions it binds but leaves out of ``__all__``, such as
  ``torch.fft.hfft2``), else every attribute of ``dir()`` whose name does not start with ``_`` and that is
  not a module. ``torch`` itself is read by ``dir()``, because its ``__all__`` leaves out
  documented names (``broadcast_shapes``, ``set_grad_enabled``, ``strided``...). For
  ``Tensor``: every attribute of ``torch.Tensor`` not starting with ``_``.
- **covered**: cygrad has an attribute of the same name in the matching namespace
  (``cygrad.Tensor`` for Tensor), callable when PyTorch's is.
- **excluded**: cygrad lacks it and a rule of ``exclusions.EXCLUSIONS`` names it, with
  the category's reason; a name cygrad has is covered even if a rule matches it.
- **missing**: every other name. Applicable = covered + missing.

Examples
--------
>>> from cygrad.api_coverage import NAMESPACES
>>> [ns.key for ns in NAMESPACES][:3]
['Tensor', 'torch', 'linalg']
"""
import importlib
import types
from dataclasses import dataclass, field

from .exclusions import EXCLUSIONS, exclusion_for

__all__ = ["Namespace", "NAMESPACES", "NamespaceReport", "pytorch_names", "cygrad_object",
           "coverage", "EXCLUSIONS", "exclusion_for"]


@dataclass(frozen=True)
class Namespace:
    """A PyTorch namespace and where cygrad's counterpart lives (module path, attribute)."""
    key: str
    torch_module: str
    cygrad_module: str
    torch_attr: str = None
    cygrad_attr: str = None


NAMESPACES = (
    Namespace("Tensor", "torch", "cygrad", "Tensor", "Tensor"),
    Namespace("torch", "torch", "cygrad"),
    Namespace("linalg", "torch.linalg", "cygrad.linalg"),
    Namespace("special", "torch.special", "cygrad.special"),
    Namespace("fft", "torch.fft", "cygrad.fft"),
    Namespace("nn.functional", "torch.nn.functional", "cygrad.nn.functional"),
    Namespace("nn.init", "torch.nn.init", "cygrad.nn.init"),
    Namespace("distributions", "torch.distributions", "cygrad.distributions"),
    Namespace("func", "torch.func", "cygrad.func"),
    Namespace("utils.checkpoint", "torch.utils.checkpoint", "cygrad.utils.checkpoint"),
)


def _import(path):
    try:
        return importlib.import_module(path)
    except ImportError:
        return None


def _torch():
    try:
        import torch
    except ImportError as exc:
        raise ImportError("cygrad.api_coverage compares cygrad with PyTorch and needs it "
                          "installed: pip install torch") from exc
    return torch


def _resolve(ns, torch_side):
    module = _import(ns.torch_module if torch_side else ns.cygrad_module)
    attr = ns.torch_attr if torch_side else ns.cygrad_attr
    if module is None or attr is None:
        return module
    return getattr(module, attr, None)


def pytorch_names(ns):
    """PyTorch's public names in namespace ``ns`` (a ``Namespace``), sorted.

    Needs PyTorch installed.
    """
    _torch()
    obj = _resolve(ns, torch_side=True)
    if ns.torch_attr is None and ns.key != "torch" and hasattr(obj, "__all__"):
        # C functions bound into the module but left out of its __all__ (torch.fft.hfft2)
        builtins = {n for n in dir(obj) if not n.startswith("_")
                    and isinstance(getattr(obj, n), types.BuiltinFunctionType)}
        return sorted(set(obj.__all__) | builtins)
    return sorted(n for n in dir(obj) if not n.startswith("_")
                  and not isinstance(getattr(obj, n, None), types.ModuleType))


def cygrad_object(ns):
    """cygrad's counterpart of namespace ``ns`` (a module or ``cygrad.Tensor``), or None.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.api_coverage import NAMESPACES, cygrad_object
    >>> cygrad_object(NAMESPACES[0]) is cygrad.Tensor
    True
    """
    return _resolve(ns, torch_side=False)


def is_covered(cygrad_obj, name, torch_value=None):
    """Whether ``cygrad_obj`` has ``name`` (callable when PyTorch's ``torch_value`` is).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.api_coverage import is_covered
    >>> is_covered(cygrad, "exp", torch_value=abs), is_covered(cygrad, "no_such_name")
    (True, False)
    """
    if cygrad_obj is None or not hasattr(cygrad_obj, name):
        return False
    if torch_value is not None and callable(torch_value):
        return callable(getattr(cygrad_obj, name))
    return True


@dataclass
class NamespaceReport:
    """The verdict on every PyTorch name of one namespace."""
    namespace: Namespace
    covered: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    excluded: dict = field(default_factory=dict)    # name -> Exclusion

    @property
    def total(self):
        return len(self.covered) + len(self.missing) + len(self.excluded)

    @property
    def applicable(self):
        return len(self.covered) + len(self.missing)

    @property
    def percent(self):
        return 100.0 * len(self.covered) / self.applicable if self.applicable else 100.0


def coverage():
    """One ``NamespaceReport`` per namespace of ``NAMESPACES``, read live. Needs PyTorch."""
    reports = []
    for ns in NAMESPACES:
        torch_obj = _resolve(ns, torch_side=True)
        ours = cygrad_object(ns)
        report = NamespaceReport(ns)
        for name in pytorch_names(ns):
            if is_covered(ours, name, getattr(torch_obj, name, None)):
                report.covered.append(name)
            elif (rule := exclusion_for(ns.key, name)) is not None:
                report.excluded[name] = rule
            else:
                report.missing.append(name)
        reports.append(report)
    return reports
