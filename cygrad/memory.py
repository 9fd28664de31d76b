"""Host memory: statistics and control of cygrad's caching CPU allocator.

Examples
--------
>>> import cygrad
>>> stats = cygrad.memory.host_stats()
>>> stats["allocated_bytes"] >= 0
True
"""
from ._core.storage import empty_cache, host_stats, set_cache_limit

__all__ = ["empty_cache", "host_stats", "set_cache_limit"]
