"""Compare each object type's visibility points with those MCS's object registries give it (scale 1).

For every type in mcs_plugin/sim/data/registry_visibility_points.json that the catalog knows, builds the type alone
in a room at scale 1 and prints: our point count, the registry's, the registry frame box (its boundingBox times
its scale, or the points' own extent where the box does not hold them), our box, and the mean and largest distance
from each registry point (mapped onto our box) to our nearest point, in metres.

    PYTHONPATH=. python benchmarks/registry_points.py
"""

from __future__ import annotations

import json

import numpy as np

from mcs_plugin.sim.catalog import get_object_type, is_known_type
from mcs_plugin.sim.controller import EmbeddedController
from mcs_plugin.sim.datafiles import data_text
from mcs_plugin.sim.observation import _geom_samples, registry_frame


def _our_points(controller: EmbeddedController, type_name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The generic visibility points (each part's corners and face centres) of one object of `type_name` at scale 1
    (MCS axes, relative to its origin), and its box (size, centre)."""
    kind = get_object_type(type_name)
    controller.start_scene({
        "name": "registry", "roomDimensions": {"x": 20, "y": 6, "z": 20},
        "performerStart": {"position": {"x": 0, "y": 0, "z": -4}, "rotation": {"x": 0, "y": 0}},
        "objects": [{"id": "o", "type": type_name, "kinematic": True,
                     "shows": [{"stepBegin": 0, "position": {"x": 0, "y": kind.position_y_on_floor, "z": 0}}]}]})
    world = controller.world
    obj = world.by_id["o"]
    data = world.data
    mine = np.concatenate([data.geom_xpos[g] + _geom_samples(world.model, g) @ data.geom_xmat[g].reshape(3, 3).T
                           for g in obj.geom_ids]) - data.xpos[obj.body_id]
    return mine[:, [0, 2, 1]], np.asarray(obj.size), np.asarray(obj.bounds_center)


def main() -> None:
    """Print the comparison table."""
    entries = json.loads(data_text("registry_visibility_points.json"))["entries"]
    controller = EmbeddedController({"metadata": "oracle", "render": False})
    print("type | ours | registry | registry frame (centre; size) | our box (centre; size) | mean / max gap (m)")
    for entry in entries:
        for type_name in entry["ids"]:
            if not is_known_type(type_name):
                continue
            ours, size, centre = _our_points(controller, type_name)
            points = np.array(entry["visibilityPoints"], float)
            frame_centre, frame_size = registry_frame(entry)
            mapped = centre + (points - frame_centre) / (frame_size / 2.0) * size / 2.0
            gaps = np.linalg.norm(mapped[:, None, :] - ours[None, :, :], axis=2).min(axis=1)
            label = f"{type_name} (legacy, version {entry['legacy_version']})" if "legacy_version" in entry else type_name
            print(f"{label} | {len(ours)} | {len(points)} | {np.round(frame_centre, 3).tolist()}; "
                  f"{np.round(frame_size, 3).tolist()} | {np.round(centre, 3).tolist()}; {np.round(size, 3).tolist()} "
                  f"| {gaps.mean():.3f} / {gaps.max():.3f}")


if __name__ == "__main__":
    main()
