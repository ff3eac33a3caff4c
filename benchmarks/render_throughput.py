"""Renders per second of `mcs_plugin.sim.renderer.Renderer` (RGB + depth + ids) on a ~30-geom room.

Reproduce (one CPU core; llvmpipe honours LP_NUM_THREADS, taskset pins the whole process):

    OMP_NUM_THREADS=1 LP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/render_throughput.py

The scene: a 10 m x 10 m room (floor, ceiling and four walls as boxes) with 24 objects (boxes,
spheres, cylinders, capsules, an ellipsoid, mesh tetrahedra), seen from a performer-height camera
that turns a little every frame (so instance data and matrices change every render). Each render
reads back all three outputs. Options: --seconds per resolution, --sizes WxH,...

Recorded (2-core AMD EPYC VM, no GPU, Mesa llvmpipe LLVM 15, taskset -c 0, LP_NUM_THREADS=1,
other jobs sharing the machine, so ranges over five runs):
    600x400  230-390 renders/s   (targets: >= 150)
    128x128  1,190-1,960         (>= 800)
    64x64    1,760-2,530
LP_NUM_THREADS=0 (rasterise in the calling thread) gives about the same.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import mujoco
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mcs_plugin.sim.renderer import Renderer  # noqa: E402

_ROOM = """
<geom name="floor" type="box" size="5 5 0.5" pos="0 0 -0.5"/>
<geom name="ceiling" type="box" size="5 5 0.25" pos="0 0 3.25"/>
<geom name="wall_n" type="box" size="5 0.25 1.5" pos="0 5.25 1.5"/>
<geom name="wall_s" type="box" size="5 0.25 1.5" pos="0 -5.25 1.5"/>
<geom name="wall_e" type="box" size="0.25 5 1.5" pos="5.25 0 1.5"/>
<geom name="wall_w" type="box" size="0.25 5 1.5" pos="-5.25 0 1.5"/>
"""


def scene_xml(n_objects: int = 24) -> str:
    """MJCF of the benchmark room with n_objects free objects placed on a ring."""
    kinds = [
        '<geom type="box" size="0.2 0.15 0.25"/>',
        '<geom type="sphere" size="0.2"/>',
        '<geom type="cylinder" size="0.15 0.25"/>',
        '<geom type="capsule" size="0.1 0.2"/>',
        '<geom type="box" size="0.4 0.3 0.1"/>',
        '<geom type="ellipsoid" size="0.25 0.15 0.1"/>',
        '<geom type="mesh" mesh="tet"/>',
        '<geom type="box" size="0.1 0.1 0.1"/>',
    ]
    bodies = []
    for i in range(n_objects):
        a = 2 * math.pi * i / n_objects
        rad = 2.0 + 1.5 * (i % 3)
        bodies.append(
            f'<body pos="{rad * math.cos(a):.3f} {rad * math.sin(a):.3f} 0.4" euler="0 0 {17 * i}">'
            f"<freejoint/>{kinds[i % len(kinds)]}</body>"
        )
    return (
        '<mujoco><asset><mesh name="tet" vertex="0 0 0  0.4 0 0  0 0.4 0  0 0 0.4"/></asset>'
        f"<worldbody>{_ROOM}{''.join(bodies)}</worldbody></mujoco>"
    )


def measure(model, data, width, height, seconds):
    """Renders per second at one resolution, camera turning 1 degree per frame."""
    ngeom = model.ngeom
    rng = np.random.default_rng(0)
    rgb = rng.uniform(0.2, 1.0, (ngeom, 3))
    vis = np.ones(ngeom, bool)
    r = Renderer(model, width, height)
    try:
        pos = np.array([0.0, -1.0, 0.762])
        up = np.array([0.0, 0.0, 1.0])

        def cam(k):
            a = math.radians(k)
            return np.array([math.sin(a), math.cos(a), -0.15])

        for k in range(10):  # warm-up (shader JIT)
            r.render(data, pos, cam(k), up, rgb, vis)
        n, t0 = 0, time.perf_counter()
        while True:
            f = r.render(data, pos, cam(n), up, rgb, vis)
            n += 1
            el = time.perf_counter() - t0
            if el >= seconds:
                break
        assert f.rgb.shape == (height, width, 3) and f.depth.shape == f.geom_ids.shape
        return n / el
    finally:
        r.close()


def main():
    """Print renders/s per resolution."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--sizes", default="600x400,128x128,64x64")
    args = ap.parse_args()
    model = mujoco.MjModel.from_xml_string(scene_xml())
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    from mcs_plugin.sim.renderer import _context

    info = _context().info
    print(
        f"ngeom={model.ngeom} renderer={info['GL_RENDERER']} "
        f"LP_NUM_THREADS={os.environ.get('LP_NUM_THREADS')} "
        f"affinity={sorted(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'}"
    )
    for s in args.sizes.split(","):
        w, h = (int(v) for v in s.split("x"))
        fps = measure(model, data, w, h, args.seconds)
        print(f"{w}x{h}: {fps:8.1f} renders/s  ({1000.0 / fps:.3f} ms/render, rgb+depth+ids)")


if __name__ == "__main__":
    main()
