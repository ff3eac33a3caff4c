"""Render one MCS scene from one pose to PNG, with whichever mcs_plugin is on the path (for before/after pictures).

Reproduce docs/rendering.md's pictures (before = main's renderer from a checkout at /tmp/render_base):
    PYTHONPATH=/tmp/render_base .venv/bin/python benchmarks/render_pictures.py docs/images/render_before.png
    .venv/bin/python benchmarks/render_pictures.py docs/images/render_after.png
    .venv/bin/python benchmarks/render_pictures.py docs/images/render_random.png --randomize 3
    .venv/bin/python benchmarks/render_pictures.py docs/images/registry_colliders.png \
        --scene docs/images/registry_colliders.scene.json --actions Pass --size 500 --colliders

The default scene and pose: tests/data/scenes/eval_7_interactive_containers_0001_01.json after the actions
given by --actions (comma-separated, default: look down 10 degrees).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("LP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from mcs_plugin.sim.controller import EmbeddedController  # noqa: E402

SCENE = "tests/data/scenes/eval_7_interactive_containers_0001_01.json"


def frame(scene: str, actions: list[str], size: int, config: dict, colliders: bool = False) -> np.ndarray:
    """The RGB frame after running actions in scene, as (H, W, 3) uint8; `colliders`: draw the registry colliders of
    the types that have them instead of their look."""
    controller = EmbeddedController({"metadata": "oracle", "size": size, **config})
    output = controller.start_scene(scene)
    if colliders:
        world = controller.world
        world.drawn[:] = True
        for obj in world.objects:
            world.drawn[obj.look_geom_ids] = False
    for action in actions:
        output = controller.step(action)
    controller.stop_simulation()
    return np.asarray(output.image_list[-1])


def main() -> None:
    """Write the PNG: one frame, or --randomize N frames side by side with randomised looks (seeds 0..N-1)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--scene", default=SCENE)
    parser.add_argument("--actions", default="LookDown")
    parser.add_argument("--size", type=int, default=600)
    parser.add_argument("--randomize", type=int, default=0, help="N looks side by side (seeds 0..N-1)")
    parser.add_argument("--colliders", action="store_true",
                        help="the frame as drawn, then beside it the registry colliders drawn in place of the looks")
    args = parser.parse_args()
    actions = [a for a in args.actions.split(",") if a]
    if args.colliders:
        image = np.concatenate([frame(args.scene, actions, args.size, {}, colliders=drawn) for drawn in (False, True)],
                               axis=1)
    elif args.randomize:
        frames = [frame(args.scene, actions, args.size, {"randomize_rendering": True, "seed": seed})
                  for seed in range(args.randomize)]
        image = np.concatenate(frames, axis=1)
    else:
        image = frame(args.scene, actions, args.size, {})
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    Image.fromarray(image).save(args.out)
    print(args.out, image.shape)


if __name__ == "__main__":
    main()
