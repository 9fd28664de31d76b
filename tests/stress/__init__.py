"""Stress tests for memory safety: long loops, every size, every deletion order, threads."""
