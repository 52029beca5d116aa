"""Benchmarks: each compares our code with a baseline measured in the same run (ratios)."""
