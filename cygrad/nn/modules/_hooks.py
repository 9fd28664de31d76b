"""Handles for hooks kept in ordered dicts (what ``Module.register_*_hook`` return)."""
import weakref

__all__ = ["RemovableHandle"]


class RemovableHandle:
    """Removes the hook it was returned for, as ``torch.utils.hooks.RemovableHandle``.

    A handle refers to its hook dicts weakly (it must not keep a deleted module's
    hooks alive) and can be used as a context manager that removes on exit.

    Parameters
    ----------
    hooks_dict : dict
        The dict the hook was stored in, under ``handle.id``.
    extra_dict : dict or list of dict, optional
        Other dicts keyed by the same id (flags such as ``with_kwargs``).

    Examples
    --------
    >>> from collections import OrderedDict
    >>> hooks = OrderedDict()
    >>> h = RemovableHandle(hooks)
    >>> hooks[h.id] = print
    >>> h.remove()
    >>> len(hooks)
    0
    """

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra_dict = []
        elif isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        """Remove the hook (and its flags); removing twice is harmless."""
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.remove()
