"""The text table of ``key_averages().table()`` (PyTorch's layout and units)."""

__all__ = ["build_table", "format_time", "format_memory"]

_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "cpu_memory_usage",
              "self_cpu_memory_usage", "count", "device_time", "device_time_total",
              "self_device_time_total", "device_memory_usage", "self_device_memory_usage")


def format_time(us):
    """Microseconds as PyTorch prints them: ``12.345us``, ``1.234ms``, ``2.000s``.

    Examples
    --------
    >>> from cygrad.profiler._table import format_time
    >>> format_time(12.3456), format_time(1234.5), format_time(2e6)
    ('12.346us', '1.234ms', '2.000s')
    """
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def format_memory(nbytes):
    """Bytes as PyTorch prints them: ``512 b``, ``4.00 Kb``, ``-1.50 Mb``.

    Examples
    --------
    >>> from cygrad.profiler._table import format_memory
    >>> format_memory(512), format_memory(4096), format_memory(-3 << 19)
    ('512 b', '4.00 Kb', '-1.50 Mb')
    """
    for unit, size in (("Gb", 1 << 30), ("Mb", 1 << 20), ("Kb", 1 << 10)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} b"


def _sort_key(sort_by):
    attr = sort_by.replace("cuda", "device").replace("xpu", "device")
    if attr not in _SORT_KEYS:
        raise AttributeError(f"cannot sort by {sort_by!r}; valid keys: "
                             + ", ".join(repr(k) for k in _SORT_KEYS))
    return lambda row: getattr(row, attr)


def _clip(text, width):
    return text if len(text) <= width else text[:width - 3] + "..."


def build_table(rows, sort_by=None, row_limit=100, header=None, max_name_column_width=55,
                max_shapes_column_width=80, max_src_column_width=75,
                top_level_events_only=False, profile_memory=False, with_shapes=False):
    """Format ``rows`` (events or key-average rows) as a table string."""
    rows = list(rows)
    if top_level_events_only:
        rows = [r for r in rows if getattr(r, "cpu_parent", None) is None]
    if not rows:
        return ""
    total_self = sum(r.self_cpu_time_total for r in rows)
    has_device = any(r.device_time_total for r in rows)
    has_stack = any(getattr(r, "stack", None) for r in rows)
    if sort_by is not None:
        rows = sorted(rows, key=_sort_key(sort_by), reverse=True)
    if row_limit is not None and row_limit >= 0:
        rows = rows[:row_limit]

    def pct(x):
        return f"{100.0 * x / total_self:.2f}%" if total_self else "0.00%"

    name_w = min(max(len(r.key) for r in rows) + 4, max_name_column_width)
    columns = [("Name", name_w, ">", lambda r: _clip(r.key, name_w)),
               ("Self CPU %", 12, ">", lambda r: pct(r.self_cpu_time_total)),
               ("Self CPU", 12, ">", lambda r: format_time(r.self_cpu_time_total)),
               ("CPU total %", 12, ">", lambda r: pct(r.cpu_time_total)),
               ("CPU total", 12, ">", lambda r: format_time(r.cpu_time_total)),
               ("CPU time avg", 12, ">", lambda r: format_time(r.cpu_time))]
    if has_device:
        columns += [("Self CUDA", 12, ">", lambda r: format_time(r.self_device_time_total)),
                    ("CUDA total", 12, ">", lambda r: format_time(r.device_time_total)),
                    ("CUDA time avg", 13, ">", lambda r: format_time(r.device_time))]
    if profile_memory:
        columns += [("CPU Mem", 12, ">", lambda r: format_memory(r.cpu_memory_usage)),
                    ("Self CPU Mem", 12, ">", lambda r: format_memory(r.self_cpu_memory_usage))]
    columns.append(("# of Calls", 12, ">", lambda r: str(r.count)))
    if with_shapes:
        shapes = [str(r.input_shapes if r.input_shapes is not None else []) for r in rows]
        shapes_w = min(max(len(s) for s in shapes + ["Input Shapes"]) + 2, max_shapes_column_width)
        lookup = dict(zip(map(id, rows), shapes))
        columns.append(("Input Shapes", shapes_w, "<",
                        lambda r: _clip(lookup[id(r)], shapes_w)))
    if has_stack:
        columns.append(("Source Location", max_src_column_width, "<",
                        lambda r: _clip((r.stack or [""])[0], max_src_column_width)))

    line = "".join("-" * w + "  " for _, w, _, _ in columns)
    out = []
    if header is not None:
        out += ["=" * len(line), header]
    out += [line, "".join(f"{title:{align}{w}}  " for title, w, align, _ in columns), line]
    for r in rows:
        out.append("".join(f"{cell(r):{align}{w}}  " for _, w, align, cell in columns))
    out.append(line)
    out.append(f"Self CPU time total: {format_time(total_self)}")
    if has_device:
        out.append(f"Self CUDA time total: {format_time(sum(r.self_device_time_total for r in rows))}")
    return "\n".join(out) + "\n"
