"""CPU time per frame of the embedded renderer alone: `sim_throughput`'s 10-object scene, first pose, RGB + depth + ids.

CPU time (time.process_time, llvmpipe's thread included) moves little with the machine's load, so it compares
shader changes on a busy machine. Before/after: run it with each tree's mcs_plugin first on the path, e.g.
    (cd /tmp/render_base && PYTHONPATH=/tmp/render_base $OLDPWD/.venv/bin/python $OLDPWD/benchmarks/render_cpu.py 600x400)
    .venv/bin/python benchmarks/render_cpu.py 600x400 64x64
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("LP_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sim_throughput import ten_object_scene  # noqa: E402

from mcs_plugin.sim.controller import EmbeddedController  # noqa: E402
from mcs_plugin.sim.world import GROUP_PERFORMER  # noqa: E402


def cpu_ms_per_render(width: int, height: int, renders: int) -> float:
    """CPU milliseconds per render of the scene's first frame (after 10 warm-up renders)."""
    controller = EmbeddedController({"metadata": "oracle", "width": width, "height": height})
    controller.start_scene(ten_object_scene())
    world, performer = controller.world, controller.performer
    forward, up = performer.camera_axes()
    args = (world.data, performer.camera_mj(), forward, up, controller._geom_rgb,
            world.model.geom_group < GROUP_PERFORMER)
    for _ in range(10):
        controller._renderer.render(*args)
    start = time.process_time()
    for _ in range(renders):
        controller._renderer.render(*args)
    elapsed = time.process_time() - start
    controller.stop_simulation()
    return 1000.0 * elapsed / renders


def main() -> None:
    """Print CPU ms per render for each size."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sizes", nargs="+", help="WxH, e.g. 600x400")
    parser.add_argument("--renders", type=int, default=200)
    args = parser.parse_args()
    for size in args.sizes:
        width, height = (int(v) for v in size.split("x"))
        print(f"{size}: {cpu_ms_per_render(width, height, args.renders):.3f} ms CPU per render", flush=True)


if __name__ == "__main__":
    main()
