"""Embedded simulator throughput: steps/s with RGB + depth + mask + oracle metadata on a 10-object scene.

Reproduce (one core, as recorded in benchmarks/RESULTS.md):
    OMP_NUM_THREADS=1 LP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/sim_throughput.py
"""

from __future__ import annotations

import argparse
import itertools
import os
import time

os.environ.setdefault("LP_NUM_THREADS", "1")  # llvmpipe's rasteriser threads: one core, as measured
os.environ.setdefault("OMP_NUM_THREADS", "1")

from mcs_plugin.sim.controller import EmbeddedController  # noqa: E402

ACTIONS = ["MoveAhead", "RotateRight", "MoveAhead", "LookDown", "MoveLeft", "RotateLeft", "LookUp", "Pass"]


def ten_object_scene() -> dict:
    """A 10 x 3 x 10 room with ten catalog objects (balls, blocks, a chest, a table, a chair)."""
    def show(x, y, z, s=1.0):
        return [{"stepBegin": 0, "position": {"x": x, "y": y, "z": z}, "scale": {"x": s, "y": s, "z": s}}]

    objects = [
        {"id": "ball_a", "type": "soccer_ball", "pickupable": True, "shows": show(0.5, 0.11, 2.0)},
        {"id": "ball_b", "type": "ball", "pickupable": True, "shows": show(-1.0, 0.1, 2.5, 0.2)},
        {"id": "cube_a", "type": "block_blank_red_cube", "pickupable": True, "shows": show(1.2, 0.05, 1.5)},
        {"id": "cube_b", "type": "block_blank_blue_cube", "pickupable": True, "shows": show(-1.5, 0.05, 1.2)},
        {"id": "chest", "type": "chest_1", "shows": show(2.0, 0.0, 3.0)},
        {"id": "table", "type": "table_1", "shows": show(-2.0, 0.0, 3.5)},
        {"id": "chair", "type": "chair_1", "shows": show(0.0, 0.0, 4.0)},
        {"id": "cylinder", "type": "cylinder", "shows": show(2.5, 0.25, 1.0, 0.5)},
        {"id": "cone", "type": "cone", "shows": show(-2.5, 0.25, 1.5, 0.5)},
        {"id": "trophy", "type": "trophy", "pickupable": True, "shows": show(1.0, 0.15, 3.5)},
    ]
    return {"name": "bench_10_objects", "roomDimensions": {"x": 10, "y": 3, "z": 10}, "objects": objects,
            "performerStart": {"position": {"x": 0, "z": -2}, "rotation": {"y": 0}}}


def measure(width: int, height: int, steps: int, render: bool = True) -> float:
    """Steps per second for one configuration (after one warm-up episode)."""
    config = {"metadata": "oracle", "width": width, "height": height, "render": render}
    controller = EmbeddedController(config)
    scene = ten_object_scene()
    controller.start_scene(scene)
    for action in itertools.islice(itertools.cycle(ACTIONS), 20):
        controller.step(action)
    controller.start_scene(scene)
    start = time.perf_counter()
    for action in itertools.islice(itertools.cycle(ACTIONS), steps):
        controller.step(action)
    elapsed = time.perf_counter() - start
    controller.stop_simulation()
    return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    print(f"{'configuration':<42} {'steps/s':>9}")
    for label, width, height, render in [
        ("600x400 RGB+depth+mask+oracle metadata", 600, 400, True),
        ("128x128 RGB+depth+mask+oracle metadata", 128, 128, True),
        ("64x64 RGB+depth+mask+oracle metadata", 64, 64, True),
        ("metadata only (no rendering)", 600, 400, False),
    ]:
        print(f"{label:<42} {measure(width, height, args.steps, render):>9.1f}", flush=True)


if __name__ == "__main__":
    main()
