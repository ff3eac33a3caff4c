"""Which recorded tests pin each constant measured from Unity's outputs: nudge it and see which tests stop passing.

A constant that can only be measured from recordings should be shown by more than the one test it was found on.
This script runs the oracle tier of the visible corpus once as it is, then once per constant with the constant moved
down and up by a step, and lists the tests that then fail (and any that then pass). Each row is one measurement.

    OMP_NUM_THREADS=1 nice -n 19 .venv/bin/python benchmarks/constant_sensitivity.py tests/data/conformance \
        --out benchmarks/constant_sensitivity.json

Constants are patched in every loaded ``mcs_plugin.sim`` module that binds the name (some import them by name).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

from mcs_plugin.conformance import run_corpus  # noqa: E402

SIM_MODULES = ("actions", "agents", "build", "catalog", "controller", "observation", "performer", "scripts", "world")

# (module that defines it, name, step): each is tried at value - step and value + step.
CONSTANTS: tuple[tuple[str, str, float], ...] = (
    ("actions", "HELD_AHEAD", 0.02),
    ("actions", "HELD_BELOW", 0.02),
    ("actions", "CONTAINER_DROP", 0.03),
    ("actions", "AGENT_HELD_GROWTH", 0.02),
    ("actions", "PUSH_IMPULSE", 1.0),
    ("actions", "TORQUE_IMPULSE", 3.0),
    ("agents", "WALK_STEP", 0.005),
    ("agents", "WALK_TURN_SNAP", 0.05),
    ("agents", "FACE_TURN_SNAP", 0.05),
    ("agents", "PERFORMER_BLOCKS", 0.03),
    ("agents", "PERFORMER_WAIT", 1),
    ("agents", "STARE_STEPS", 1),
    ("catalog", "COG_DIAMETER", 0.05),
    ("catalog", "COG_HEIGHT", 0.005),
    ("catalog", "CONTAINER_FLOOR_FRACTION", 0.02),
    ("observation", "SAMPLE_INSET", 0.05),
    ("observation", "REGISTRY_INSET", 0.009),
    ("performer", "FOOT_CLEARANCE", 0.03),
    ("performer", "MOVER_CARRY_RADIUS", 0.03),
    ("performer", "MAX_RISE", 0.02),
    ("performer", "STRUCTURE_RADIUS", 0.02),
    ("performer", "SHOVE_RADIUS", 0.02),
    ("performer", "START_CLEAR_RADIUS", 0.02),
    ("performer", "AGENT_COLLIDER_RADIUS", 0.03),
    ("world", "ANGULAR_DRAG", 0.2),
    ("world", "MAX_BODY_ANGULAR_SPEED", 1.0),
    ("world", "SPIN_FRICTION", 0.15),
    ("world", "SEESAW_PLANK_THICKNESS", 0.01),
)


def _modules() -> list[Any]:
    return [importlib.import_module(f"mcs_plugin.sim.{name}") for name in SIM_MODULES]


def _set(name: str, value: Any) -> None:
    """Bind `name` to `value` in every simulator module that has it."""
    for module in _modules():
        if hasattr(module, name):
            setattr(module, name, value)


def _failing(directory: str, tier: str) -> set[str]:
    result = run_corpus(directory, tiers=(tier,), progress=False)[tier]
    return {r.name for r in result.results if not r.passed}


def main(argv: list[str] | None = None) -> int:
    """Run the baseline and every nudged constant; print a table and optionally write JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--tier", default="oracle")
    parser.add_argument("--only", nargs="*", help="names of the constants to try (default: all)")
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    started = time.time()
    base = _failing(args.corpus, args.tier)
    rows = []
    for module_name, name, step in CONSTANTS:
        if args.only and name not in args.only:
            continue
        original = getattr(importlib.import_module(f"mcs_plugin.sim.{module_name}"), name)
        row: dict[str, Any] = {"constant": f"{module_name}.{name}", "value": original, "step": step}
        for label, value in (("down", original - step), ("up", original + step)):
            _set(name, type(original)(value))
            try:
                failing = _failing(args.corpus, args.tier)
            finally:
                _set(name, original)
            row[label] = {"value": value, "breaks": sorted(failing - base), "fixes": sorted(base - failing)}
        rows.append(row)
        shown = sorted(set(row["down"]["breaks"]) | set(row["up"]["breaks"]))
        print(f"{row['constant']} = {original} (+-{step}): breaks {len(shown)}: {', '.join(t[:3] for t in shown)}",
              flush=True)
    report = {"tier": args.tier, "baseline_failing": sorted(base), "constants": rows,
              "seconds": round(time.time() - started, 1)}
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
