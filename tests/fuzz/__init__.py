"""Fuzzing the simulator's boundary: mutated real scenes, bad action parameters and bad configs.

Every outcome must be a clean error (`outcome.is_clean_error`) or a normal run with finite outputs and nothing
below the floor. `python -m tests.fuzz --help` runs the full-size fuzz; `test_fuzz.py` holds a fast slice and the
slow full run.
"""
