"""Conformance pass counts per class of rule: which recorded tests exercise what, and how many of them pass.

Reads the JSON that ``mcs-plugin conformance --json`` prints (one or more tiers) and the corpus files, sorts every
test into the classes whose features its scene or actions have (a test may be in several), and prints a Markdown
table of passed/total per class and tier.

    .venv/bin/python -m mcs_plugin.cli conformance tests/data/conformance --json --no-progress > /tmp/all.json
    .venv/bin/python benchmarks/conformance_by_class.py tests/data/conformance /tmp/all.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcs_plugin.conformance import corpus_files_dir, discover_tests, read_actions

SCRIPT_KEYS = ("hides", "ghosts", "shrouds", "moves", "rotates", "forces", "torques", "teleports", "togglePhysics",
               "changeMaterials")
OBJECT_ACTIONS = ("PickupObject", "PutObject", "DropObject", "MoveObject", "RotateObject", "OpenObject",
                  "CloseObject", "PushObject", "PullObject", "TorqueObject", "InteractWithAgent")


def _types(scene: dict) -> list[str]:
    return [str(o.get("type", "")) for o in scene.get("objects", [])]


def _has_script(scene: dict) -> bool:
    return any(o.get(key) for o in scene.get("objects", []) for key in SCRIPT_KEYS)


# class name -> predicate(scene, actions)
CLASSES: dict[str, Callable[[dict, list[str]], bool]] = {
    "object actions by image point": lambda s, a: any("ImageCoords" in line for line in a),
    "object actions by id": lambda s, a: any(line.startswith(OBJECT_ACTIONS) and "objectId" in line for line in a),
    "held objects (PickupObject)": lambda s, a: any(line.startswith("PickupObject") for line in a),
    "PutObject / MoveObject / RotateObject": lambda s, a: any(
        line.startswith(("PutObject", "MoveObject", "RotateObject")) for line in a),
    "simulation agents": lambda s, a: any(t.startswith("agent") for t in _types(s)),
    "tools": lambda s, a: any(t.startswith("tool") for t in _types(s)),
    "scripted events": lambda s, a: _has_script(s),
    "passive scenes": lambda s, a: bool(s.get("intuitivePhysics") or s.get("isometric")),
    "ramps, platforms, holes, lava": lambda s, a: bool(s.get("holes") or s.get("lava")) or any(
        t in ("triangle", "ramp") or t.startswith(("platform", "ramp")) for t in _types(s)),
    "rotating cogs": lambda s, a: "rotating_cog" in _types(s),
    "containers and lids": lambda s, a: any(o.get("openable") or o.get("lidAttachment")
                                             for o in s.get("objects", [])),
}


def classify(corpus: str) -> dict[str, list[str]]:
    """Class name -> the test names in it."""
    folder = corpus_files_dir(corpus)
    members: dict[str, list[str]] = {name: [] for name in CLASSES}
    for test in discover_tests(folder):
        with open(folder / f"{test}.scene.json", encoding="utf-8-sig") as handle:
            scene = json.load(handle)
        actions_path = folder / f"{test}.actions.txt"
        actions = read_actions(actions_path) if actions_path.is_file() else []
        for name, predicate in CLASSES.items():
            if predicate(scene, actions):
                members[name].append(test)
    return members


def table(members: dict[str, list[str]], results: dict[str, Any]) -> str:
    """Markdown table: class, tests, then passed/total per tier."""
    tiers = list(results)
    failing = {tier: {t for tests in results[tier]["failures"].values() for t in tests} for tier in tiers}
    lines = ["| class of rule | tests | " + " | ".join(tiers) + " |", "|---|---:|" + "---:|" * len(tiers)]
    for name, tests in members.items():
        cells = [f"{sum(1 for t in tests if t not in failing[tier])}/{len(tests)}" for tier in tiers]
        lines.append(f"| {name} | {len(tests)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the per-class table for a corpus and a conformance JSON result."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("results", nargs="+", help="JSON files printed by `mcs-plugin conformance --json`")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    for path in args.results:
        results.update(json.loads(Path(path).read_text()))
    print(table(classify(args.corpus), results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
