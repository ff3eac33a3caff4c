"""Full-size fuzz: python -m tests.fuzz [--scenes 2000] [--actions 2000] [--configs 300] [--seed 0]."""

from __future__ import annotations

import argparse
import sys

from tests.fuzz.cases import make_cases
from tests.fuzz.runner import run_cases


def main(argv: list[str] | None = None) -> int:
    """Run the fuzz, print counts per kind and category and the first failures; exit 1 on any failure."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--scenes", type=int, default=2000, help="scene mutations")
    parser.add_argument("--actions", type=int, default=2000, help="fuzzed actions (10 per episode)")
    parser.add_argument("--configs", type=int, default=300, help="fuzzed configs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case before it counts as a hang")
    args = parser.parse_args(argv)
    cases = make_cases(args.seed, args.scenes, args.actions, args.configs)
    report = run_cases(cases, timeout=args.timeout, progress=True)
    print(report.table())
    print(f"foreign exceptions, silent bad states, hangs, process deaths: {report.failures()} "
          f"({report.seconds:.0f} s, seed {args.seed})")
    for example in report.examples:
        print(example)
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
