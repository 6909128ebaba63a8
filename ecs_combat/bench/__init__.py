"""Benchmarks: both engines side by side against the hand-written numpy floor."""
