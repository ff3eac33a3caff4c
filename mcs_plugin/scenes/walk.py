"""Walk a generated scene's navigation-grid path in the embedded simulator and pick up its retrieval target.

The check that the scene generator's notion of reachable (`checks.reach_region` on the `NavGrid`) holds in the
simulator; used by the test suite and `benchmarks/scene_walk.py`.
"""

from __future__ import annotations

import math
from typing import Any

from mcs_plugin.scenes.checks import footprints, nav_grid, reach_region
from mcs_plugin.sim.controller import EmbeddedController

LOOK_DOWN_TRIES = 9  # pickups tried, looking down one more step after each (MCS tilts 10 degrees a step)


def walk_and_pick_up(scene: dict[str, Any]) -> str:
    """Walk the grid's shortest path to the target's reach region, open the container it lies in (if any) and pick
    it up: the PickupObject's return status, "NO_PATH" when the grid finds none, or "MOVE_<status>" when a step of
    the path did not succeed."""
    target_id = scene["goal"]["metadata"]["target"]["id"]
    region = reach_region(scene, target_id)
    path = None if region is None else nav_grid(scene).path(*region)
    if path is None:
        return "NO_PATH"
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    try:
        out = controller.start_scene(scene)

        def face(x: float, z: float) -> None:
            nonlocal out
            bearing = math.degrees(math.atan2(x - out.position["x"], z - out.position["z"]))
            turn = round(((bearing - out.rotation + 180) % 360 - 180) / 10)
            for _ in range(abs(turn)):
                out = controller.step("RotateRight" if turn > 0 else "RotateLeft")

        for x, z in path[1:]:
            face(x, z)
            out = controller.step("MoveAhead")
            if out.return_status != "SUCCESSFUL":
                return f"MOVE_{out.return_status}"
        target = next(o for o in scene["objects"] if o["id"] == target_id)
        tx, tz = target["shows"][0]["position"]["x"], target["shows"][0]["position"]["z"]
        face(tx, tz)
        containers = [o["id"] for o, fp in footprints(scene)
                      if o.get("openable") and o["id"] != target_id and fp.distance([[tx, tz]])[0] == 0]
        status = "NOT_TRIED"
        for _ in range(LOOK_DOWN_TRIES):
            if containers and controller.step("OpenObject", objectId=containers[0]).return_status == "SUCCESSFUL":
                containers = []
            status = controller.step("PickupObject", objectId=target_id).return_status
            if status == "SUCCESSFUL":
                return status
            out = controller.step("LookDown")
        return status
    finally:
        controller.stop_simulation()
