"""Replay every recorded conformance test from perturbed starts and count crashes of the embedded simulator.

Each trial shifts the performer's start by up to --shift metres on x and z and, for half of the objects, the first
`shows` position by up to --object-shift on x, then replays the test's actions (at most --steps). A ValueError that
MCS also raises (an action the goal's action list does not allow, e.g. after stepping on lava) ends the trial as the
real MCS would, and a perturbed scene refused with a ValueError (a start outside the room) is counted apart too;
any other exception is a crash and is printed with its test and trial.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/conformance_fuzz.py tests/data/conformance --trials 2 --seed 7
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import traceback

from tqdm import tqdm

from mcs_plugin.conformance import corpus_files_dir, discover_tests, read_actions
from mcs_plugin.mcs import parse_action_string
from mcs_plugin.sim.controller import EmbeddedController


def perturbed(scene: dict, rng: random.Random, shift: float, object_shift: float) -> dict:
    """A copy of `scene` with the performer's start and half of the objects' first positions moved a little."""
    scene = copy.deepcopy(scene)
    start = scene.setdefault("performerStart", {}).setdefault("position", {})
    for axis in ("x", "z"):
        start[axis] = float(start.get(axis) or 0.0) + rng.uniform(-shift, shift)
    for obj in scene.get("objects", []):
        show = (obj.get("shows") or [{}])[0]
        if "position" in show and rng.random() < 0.5:
            show["position"]["x"] = float(show["position"].get("x") or 0.0) + rng.uniform(-object_shift, object_shift)
    return scene


def _crash(error: BaseException) -> str:
    return "".join(traceback.format_exception(error, limit=4))


def run_trial(scene: dict, actions: list[str], steps: int) -> str | None:
    """Replay `actions` on `scene`: None if all ran, 'rejected' if the perturbed scene was refused with a
    ValueError (e.g. a start outside the room), 'restricted' if MCS's action list ended it, else the crash."""
    controller = EmbeddedController({"metadata": "oracle"})
    try:
        controller.start_scene(scene)
    except ValueError:
        return "rejected"
    except Exception as error:  # noqa: BLE001 - every other exception is what this script counts
        return _crash(error)
    try:
        for line in actions[:steps]:
            name, params = parse_action_string(line)
            controller.step(name, **params)
    except ValueError as error:
        return "restricted" if "is not allowed at step" in str(error) else _crash(error)
    except Exception as error:  # noqa: BLE001
        return _crash(error)
    finally:
        if not controller.ended:  # the actions may end the scene themselves (EndScene)
            controller.end_scene()
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="conformance corpus folder (tests/data/conformance)")
    parser.add_argument("--trials", type=int, default=2, help="perturbed replays per test")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shift", type=float, default=0.5, help="metres the performer's start moves at most")
    parser.add_argument("--object-shift", type=float, default=0.2, help="metres an object's start moves at most")
    parser.add_argument("--steps", type=int, default=60, help="actions replayed per trial at most")
    args = parser.parse_args(argv)

    files = corpus_files_dir(args.corpus)
    rng = random.Random(args.seed)
    counts = {"ran": 0, "rejected": 0, "restricted": 0, "crashed": 0}
    for name in tqdm(discover_tests(args.corpus), desc="tests", file=sys.stderr):
        scene = json.loads((files / f"{name}.scene.json").read_text(encoding="utf-8-sig"))
        actions = read_actions(files / f"{name}.actions.txt")
        for trial in range(args.trials):
            outcome = run_trial(perturbed(scene, rng, args.shift, args.object_shift), actions, args.steps)
            if outcome is None:
                counts["ran"] += 1
            elif outcome in counts:
                counts[outcome] += 1
            else:
                counts["crashed"] += 1
                print(f"{name} trial {trial}:\n{outcome}")
    print(f"{sum(counts.values())} perturbed replays: {counts['ran']} ran through, {counts['rejected']} scenes refused "
          f"with a ValueError, {counts['restricted']} ended by MCS's action list (ValueError, as MCS), "
          f"{counts['crashed']} crashed")
    return 1 if counts["crashed"] else 0


if __name__ == "__main__":
    sys.exit(main())
