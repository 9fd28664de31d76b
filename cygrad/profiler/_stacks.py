"""``export_stacks``: collapsed call stacks for flame graphs."""

__all__ = ["export_stacks"]


def export_stacks(events, path, metric="self_cpu_time_total"):
    """Write one ``outer;...;inner;op value`` line per op recorded with a call stack
    (``with_stack=True``): the input of ``flamegraph.pl`` and speedscope. ``value``
    is the op's ``metric`` in whole microseconds.

    Examples
    --------
    >>> import cygrad, os, tempfile
    >>> from cygrad.profiler import profile
    >>> with profile(with_stack=True) as prof:
    ...     y = cygrad.ones(2).exp()
    >>> path = os.path.join(tempfile.mkdtemp(), "stacks.txt")
    >>> prof.export_stacks(path)
    >>> open(path).read().splitlines()[-1].split(";")[-1].startswith("exp ")
    True
    """
    attr = metric.replace("cuda", "device")
    if attr not in ("self_cpu_time_total", "self_device_time_total"):
        raise ValueError(f"metric must be 'self_cpu_time_total' or 'self_cuda_time_total', "
                         f"got {metric!r}")
    with open(path, "w") as f:
        for ev in events:
            if not ev.stack:
                continue
            frames = [fr.replace(";", ",").replace(" ", "_") for fr in reversed(ev.stack)]
            value = int(getattr(ev, attr))
            f.write(";".join(frames + [ev.name]) + f" {value}\n")
