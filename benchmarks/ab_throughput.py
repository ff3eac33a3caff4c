"""Interleaved A/B simulator throughput of two source trees: wall and CPU time per step, medians over rounds.

Each round runs `sim_throughput`'s 10-object scene once per tree, alternating A, B (B, A on odd rounds, so
neither always runs first), each in a fresh process whose mcs_plugin comes from that tree (PYTHONPATH, cwd).
CPU time is the process's time.process_time() over the timed steps (all its threads, llvmpipe's included):
on a loaded machine it moves far less than wall time.

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
controller = EmbeddedController({{"metadata": "oracle", "width": {width}, "height": {height}}})
scene = ten_object_scene()
controller.start_scene(scene)
for action in itertools.islice(itertools.cycle(ACTIONS), 20):
    controller.step(action)
controller.start_scene(scene)
wall, cpu = time.perf_counter(), time.process_time()
for action in itertools.islice(itertools.cycle(ACTIONS), {steps}):
    controller.step(action)
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({{"wall_ms": 1000 * wall / {steps}, "cpu_ms": 1000 * cpu / {steps}}}))
"""


def run_once(tree: str, width: int, height: int, steps: int) -> dict[str, float]:
    """Wall and CPU milliseconds per step of one fresh process importing mcs_plugin from tree."""
    tree = os.path.abspath(tree)
    code = _MEASURE.format(bench_dir=os.path.dirname(os.path.abspath(__file__)), tree=tree, width=width,
                           height=height, steps=steps)
    env = {**os.environ, "PYTHONPATH": tree, "LP_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    """Print per-round figures and the medians of A and B, and B/A."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree_a", help="before: a source tree with mcs_plugin/")
    parser.add_argument("tree_b", help="after")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--sizes", default="600x400,64x64")
    args = parser.parse_args()
    for size in args.sizes.split(","):
        width, height = (int(v) for v in size.split("x"))
        results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
        for r in range(args.rounds):
            order = ("A", "B") if r % 2 == 0 else ("B", "A")
            for label in order:
                tree = args.tree_a if label == "A" else args.tree_b
                results[label].append(run_once(tree, width, height, args.steps))
            print(f"{size} round {r}: " + "  ".join(
                f"{k} wall {results[k][-1]['wall_ms']:.2f} cpu {results[k][-1]['cpu_ms']:.2f} ms/step" for k in "AB"),
                flush=True)
        med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_ms", "cpu_ms")} for k, v in results.items()}
        print(f"{size} median ms/step: A wall {med['A']['wall_ms']:.2f} cpu {med['A']['cpu_ms']:.2f} | "
              f"B wall {med['B']['wall_ms']:.2f} cpu {med['B']['cpu_ms']:.2f} | B/A wall "
              f"{med['B']['wall_ms'] / med['A']['wall_ms']:.3f} cpu {med['B']['cpu_ms'] / med['A']['cpu_ms']:.3f}",
              flush=True)


if __name__ == "__main__":
    main()
