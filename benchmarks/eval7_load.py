"""Load every scene of a folder on the embedded simulator and take a few steps (the scene's own action when a step
allows one, else Pass); prints the scenes that fail and the count.

    python benchmarks/eval7_load.py ../shared/mcs/eval7 [--steps 3]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcs_plugin.experts.policies import scripted_action
from mcs_plugin.sim.controller import EmbeddedController


def load_and_step(controller: EmbeddedController, scene: Path, steps: int) -> None:
    """Start a scene and take `steps` steps (raises whatever the simulator raises)."""
    output = controller.start_scene(str(scene))
    for _ in range(steps):
        action, params = scripted_action(output) or ("Pass", {})
        output = controller.step(action, **params)
        if output is None:
            break
    controller.end_scene()


def main(argv: list[str] | None = None) -> int:
    """Check every *.json scene below the given folder; exit status 1 when any fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args(argv)
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    scenes = sorted(args.folder.glob("*.json"))
    failed = 0
    for scene in scenes:
        try:
            load_and_step(controller, scene, args.steps)
        except Exception as error:  # report every scene that does not load or step, then go on
            failed += 1
            print(f"FAIL {scene.name}: {type(error).__name__}: {error}", flush=True)
    print(f"loaded and stepped {len(scenes) - failed} of {len(scenes)} scenes")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
