"""Small hand-made MCS scenes for simulator tests."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
SAMPLE_SCENES = sorted((DATA / "scenes").glob("*.json"))


def ball(object_id: str = "ball", x: float = 0.0, z: float = 1.14, diameter: float = 0.5, **flags) -> dict:
    """A pickupable ball resting on the floor."""
    return {
        "id": object_id, "type": "ball", "mass": 1, "pickupable": True,
        "materials": ["AI2-THOR/Materials/Plastics/BlueRubber"], "salientMaterials": ["rubber"],
        "shows": [{"stepBegin": 0, "position": {"x": x, "y": diameter / 2, "z": z},
                   "scale": {"x": diameter, "y": diameter, "z": diameter}}],
        **flags,
    }


def chest(object_id: str = "chest", x: float = 0.0, z: float = 1.0, **flags) -> dict:
    """An openable chest (receptacle) on the floor."""
    return {"id": object_id, "type": "chest_1", "shows": [{"stepBegin": 0, "position": {"x": x, "y": 0, "z": z}}], **flags}


def wall(object_id: str = "wall", x: float = 0.0, z: float = 1.0, width: float = 2.0) -> dict:
    """A static interior wall (structure)."""
    return {
        "id": object_id, "type": "cube", "kinematic": True, "structure": True,
        "shows": [{"stepBegin": 0, "position": {"x": x, "y": 1.0, "z": z}, "scale": {"x": width, "y": 2.0, "z": 0.1}}],
    }


def scene(*objects: dict, name: str = "test", start=(0.0, 0.0), yaw: float = 0.0, tilt: float = 0.0, goal=None, **extra) -> dict:
    """A 10 x 3 x 10 room with the performer at `start` and the given objects."""
    data = {
        "name": name,
        "roomDimensions": {"x": 10, "y": 3, "z": 10},
        "performerStart": {"position": {"x": start[0], "y": 0, "z": start[1]}, "rotation": {"x": tilt, "y": yaw}},
        "objects": list(objects),
        **extra,
    }
    if goal is not None:
        data["goal"] = goal
    return data


def obj(output, object_id: str):
    """The ObjectMetadata of an object (or structure) in a step output, or None."""
    return next((o for o in output.object_list + output.structural_object_list if o.uuid == object_id), None)


def run(sim, steps: int, action: str = "Pass") -> list:
    """The outputs of `steps` repetitions of one action."""
    return [sim.step(action) for _ in range(steps)]


def seesaw(tilt: float = 17.0, centre_y: float = 0.468, centre_z: float = 0.3) -> list[dict]:
    """MCS's seesaw (IT 086, 092): a 3 m physical plank (scale z 100, as MCS scenes give it) tilted `tilt` degrees
    with its +z end low, over a kinematic 0.5 m pivot block at the origin."""
    plank = {
        "id": "seesaw", "type": "cube", "physics": True, "seesaw": True, "moveable": True, "mass": 1,
        "shows": [{"stepBegin": 0, "scale": {"x": 0.2, "y": 3, "z": 100},
                   "rotation": {"x": 90 - tilt, "y": 180, "z": 0},
                   "position": {"x": 0, "y": centre_y, "z": centre_z}}],
    }
    pivot = {
        "id": "seesaw_pivot", "type": "cube", "seesaw": True, "kinematic": True, "moveable": True, "mass": 1,
        "shows": [{"stepBegin": 0, "scale": {"x": 0.75, "y": 0.2, "z": 0.5}, "rotation": {"x": 90, "y": 180, "z": 0},
                   "position": {"x": 0, "y": 0.25, "z": 0}}],
    }
    return [plank, pivot]
