"""Interleaved A/B simulator throughput of two source trees: wall and CPU time per step, medians over rounds.

Each round runs `sim_throughput`'s 10-object scene once per tree, alternating A, B (B, A on odd rounds, so
neither always runs first), each in a fresh process whose mcs_plugin comes from that tree (PYTHONPATH, cwd).
CPU time is the process's time.process_time() over the timed steps (all its threads, llvmpipe's included):
on a loaded machine it moves far less than wall time.

`--measure start_scene` times `start_scene` instead (build, first physics step and frame): the 10-object scene and
six recorded Eval-7 scenes, each started `--starts` times per round, with and without rendering (64x64).
`--measure opened_door` times the steps with a door added to the scene and opened first (an opened lid, door or
drawer once switched MuJoCo's collision midphase off for the rest of the scene).
`--measure build_world` times the scene -> MuJoCo model build alone, over every scene in tests/data/scenes.

Reproduce benchmarks/RESULTS.md's rendering A/B (before = main's commit exported to /tmp/render_base):
    git archive main | tar -x -C /tmp/render_base
    nice -n 19 env OMP_NUM_THREADS=1 .venv/bin/python benchmarks/ab_throughput.py /tmp/render_base . --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

# Runs inside the measured tree's process: the benchmark scene of this file's tree, that tree's controller.
_MEASURE = """
import itertools, json, os, sys, time
os.environ.setdefault("LP_NUM_THREADS", "1")
sys.path.insert(0, {bench_dir!r})
from sim_throughput import ACTIONS, ten_object_scene
from mcs_plugin.sim.controller import EmbeddedController
import mcs_plugin
assert os.path.realpath(mcs_plugin.__file__).startswith(os.path.realpath({tree!r})), mcs_plugin.__file__
controller = EmbeddedController({{"metadata": "oracle", "width": {width}, "height": {height}, "render": {render}}})
scene = ten_object_scene()
if {door}:  # a door standing in the room, opened before the timed steps
    scene["objects"].append({{"id": "door", "type": "door_4", "shows": [{{"stepBegin": 0, "position": {{"x": 3.5, "y": 0, "z": 4.5}}}}]}})
controller.start_scene(scene)
for action in itertools.islice(itertools.cycle(ACTIONS), 20):
    controller.step(action)
controller.start_scene(scene)
if {door}:
    controller.world.set_open(controller.world.by_id["door"], True)
wall, cpu = time.perf_counter(), time.process_time()
for action in itertools.islice(itertools.cycle(ACTIONS), {steps}):
    controller.step(action)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({{"wall_ms": 1000 * wall / {steps}, "cpu_ms": 1000 * cpu / {steps}}}))
"""

START_SCENES = [f"tests/data/scenes/eval_7_interactive_{name}_0001_01.json"
                for name in ("obstacles", "containers", "ramps", "symmetric_tool", "lava", "holes")]
_START = """
import json, os, sys, time
os.environ.setdefault("LP_NUM_THREADS", "1")
sys.path.insert(0, {bench_dir!r})
from sim_throughput import ten_object_scene
from mcs_plugin.sim.controller import EmbeddedController
import mcs_plugin
assert os.path.realpath(mcs_plugin.__file__).startswith(os.path.realpath({tree!r})), mcs_plugin.__file__
scenes = [ten_object_scene()] + [json.load(open(path)) for path in {scenes!r}]
controller = EmbeddedController({{"metadata": "oracle", "width": 64, "height": 64, "render": {render}}})
for scene in scenes:
    controller.start_scene(scene)
wall, cpu = time.perf_counter(), time.process_time()
for _ in range({starts}):
    for scene in scenes:
        controller.start_scene(scene)
count = {starts} * len(scenes)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({{"wall_ms": 1000 * wall / count, "cpu_ms": 1000 * cpu / count}}))
"""

_BUILD = """
import glob, json, os, sys, time, warnings
warnings.simplefilter("ignore")  # scene files with keys the simulator ignores
from mcs_plugin.mcs import load_scene
from mcs_plugin.sim.build import build_world
import mcs_plugin
assert os.path.realpath(mcs_plugin.__file__).startswith(os.path.realpath({tree!r})), mcs_plugin.__file__
scenes = [load_scene(path) for path in sorted(glob.glob("tests/data/scenes/*.json"))]
for scene in scenes:
    build_world(scene)
wall, cpu = time.perf_counter(), time.process_time()
for _ in range({starts}):
    for scene in scenes:
        build_world(scene)
count = {starts} * len(scenes)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({{"wall_ms": 1000 * wall / count, "cpu_ms": 1000 * cpu / count}}))
"""


def run_once(tree: str, template: str, **params: object) -> dict[str, float]:
    """Wall and CPU milliseconds per step (or start) of a measuring template run in one fresh process that imports
    mcs_plugin from tree."""
    tree = os.path.abspath(tree)
    code = template.format(bench_dir=os.path.dirname(os.path.abspath(__file__)), tree=tree, **params)
    # The tree first, then the caller's path (packages installed beside the interpreter, e.g. as wheels).
    path = os.pathsep.join(p for p in (tree, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "LP_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Print per-round figures and the medians of A and B, and B/A."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree_a", help="before: a source tree with mcs_plugin/")
    parser.add_argument("tree_b", help="after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--sizes", default="600x400,64x64", help="WxH,... ('none': no rendering)")
    parser.add_argument("--measure", choices=("steps", "opened_door", "start_scene", "build_world"), default="steps")
    parser.add_argument("--starts", type=int, default=5, help="start_scene, build_world: runs of each scene per round")
    args = parser.parse_args()
    cases: dict[str, tuple[str, dict[str, object]]] = {}
    if args.measure in ("steps", "opened_door"):
        for size in args.sizes.split(","):
            render = size != "none"  # "none": oracle metadata only, as sim_throughput's last configuration
            width, height = (int(v) for v in size.split("x")) if render else (600, 400)
            cases[size] = (_MEASURE, {"width": width, "height": height, "render": render, "steps": args.steps,
                                      "door": args.measure == "opened_door"})
    elif args.measure == "build_world":
        cases["build_world"] = (_BUILD, {"starts": args.starts})
    else:
        for render in (False, True):
            cases[f"start_scene render={render}"] = (_START, {"scenes": START_SCENES, "render": render,
                                                              "starts": args.starts})
    unit = {"steps": "ms/step", "opened_door": "ms/step", "start_scene": "ms/start", "build_world": "ms/build"}[args.measure]
    for size, (template, params) in cases.items():
        results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
        for r in range(args.rounds):
            order = ("A", "B") if r % 2 == 0 else ("B", "A")
            for label in order:
                tree = args.tree_a if label == "A" else args.tree_b
                results[label].append(run_once(tree, template, **params))
            print(f"{size} round {r}: " + "  ".join(
                f"{k} wall {results[k][-1]['wall_ms']:.2f} cpu {results[k][-1]['cpu_ms']:.2f} {unit}" for k in "AB"),
                flush=True)
        med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_ms", "cpu_ms")} for k, v in results.items()}
        print(f"{size} median {unit}: A wall {med['A']['wall_ms']:.2f} cpu {med['A']['cpu_ms']:.2f} | "
              f"B wall {med['B']['wall_ms']:.2f} cpu {med['B']['cpu_ms']:.2f} | B/A wall "
              f"{med['B']['wall_ms'] / med['A']['wall_ms']:.3f} cpu {med['B']['cpu_ms'] / med['A']['cpu_ms']:.3f}",
              flush=True)


if __name__ == "__main__":
    main()
