"""Benchmarks: chunk throughput against the official SDK accumulators (see issue 7)."""
