"""Goal images: a target object rendered alone by the embedded simulator (MCS `target.image`).

The object (its type, materials and scale proportions) is placed in an otherwise empty room in front of the
performer, scaled uniformly so that its bounding sphere has radius 0.45 m (a uniform scale does not change how
it looks, only how big it is), turned 30 degrees to show two sides, and seen from 1.3 m away, 10 degrees from
above. The frame is rendered at twice the output size, every pixel that is not the object (per the instance
mask) is set to white, and the frame is downsampled (Lanczos) to `size` x `size`. The result is a nested list
`[row][column][r, g, b]` of ints 0..255, as MCS gives `target.image` (numpy arrays in MCS; JSON lists in files).

One controller per process renders every image; images are cached per (type, materials, scale proportions,
size), so a dataset renders each distinct look once.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from mcs_plugin.constants import CAMERA_FIELD_OF_VIEW, STANDING_CAMERA_HEIGHT
from mcs_plugin.sim.catalog import get_object_type

IMAGE_VIEW_TILT = 10.0  # degrees below horizontal
IMAGE_OBJECT_RADIUS = 0.45  # metres, after normalising the scale
IMAGE_OBJECT_YAW = 30.0
_HALF_FOV = math.radians(CAMERA_FIELD_OF_VIEW / 2)

_controller = None


def _get_controller(size: int):
    global _controller
    if _controller is None or _controller.width != size:
        from mcs_plugin.sim.controller import EmbeddedController

        _controller = EmbeddedController({"metadata": "oracle", "width": size, "height": size, "render": True})
    return _controller


def image_scene(type_name: str, materials: tuple[str, ...], scale: tuple[float, float, float]) -> dict[str, Any]:
    """The one-object scene a target image is rendered from."""
    otype = get_object_type(type_name)
    size = np.array(otype.size) * np.array(scale)
    k = IMAGE_OBJECT_RADIUS / max(1e-6, 0.5 * float(np.linalg.norm(size)))
    final = [round(float(s) * k, 5) for s in scale]
    distance = 1.05 * IMAGE_OBJECT_RADIUS / math.sin(_HALF_FOV)
    tilt = math.radians(IMAGE_VIEW_TILT)
    centre_y = STANDING_CAMERA_HEIGHT - distance * math.sin(tilt)
    centre_z = distance * math.cos(tilt)
    origin_y = centre_y - (otype.size[1] / 2 - otype.position_y_on_floor) * final[1]
    return {
        "name": f"target-image-{type_name}",
        "roomDimensions": {"x": 12, "y": 4, "z": 12},
        "performerStart": {"position": {"x": 0, "y": 0, "z": 0}, "rotation": {"x": IMAGE_VIEW_TILT, "y": 0}},
        "objects": [{
            "id": "image_target",
            "type": type_name,
            "kinematic": True,
            "materials": list(materials),
            "shows": [{"stepBegin": 0, "position": {"x": 0.0, "y": round(origin_y, 5), "z": round(centre_z, 5)},
                       "rotation": {"x": 0, "y": IMAGE_OBJECT_YAW, "z": 0},
                       "scale": {"x": final[0], "y": final[1], "z": final[2]}}],
        }],
    }


@functools.lru_cache(maxsize=4096)
def _render(type_name: str, materials: tuple[str, ...], proportions: tuple[float, float, float], size: int) -> tuple:
    from PIL import Image

    controller = _get_controller(2 * size)
    output = controller.start_scene(image_scene(type_name, materials, proportions))
    rgb = np.array(output.image_list[0].convert("RGB"))
    mask = np.array(output.object_mask_list[0].convert("RGB"))
    color = next(o.color for o in output.object_list if o.uuid == "image_target")
    mine = np.all(mask == np.array([color["r"], color["g"], color["b"]], dtype=np.uint8), axis=-1)
    rgb[~mine] = 255
    small = Image.fromarray(rgb).resize((size, size), Image.Resampling.LANCZOS)
    return tuple(map(tuple, np.asarray(small, dtype=np.uint8).reshape(-1, 3).tolist()))


def render_target_image(obj: dict[str, Any], size: int = 64) -> list[list[list[int]]]:
    """The goal image of a scene object dict: `size` x `size` RGB, as nested lists of ints (white background)."""
    scale = obj["shows"][0].get("scale") or {"x": 1, "y": 1, "z": 1}
    sx, sy, sz = float(scale["x"]), float(scale["y"]), float(scale["z"])
    biggest = max(sx, sy, sz)
    proportions = (round(sx / biggest, 4), round(sy / biggest, 4), round(sz / biggest, 4))
    flat = _render(obj["type"], tuple(obj.get("materials") or ()), proportions, int(size))
    return [[list(flat[r * size + c]) for c in range(size)] for r in range(size)]
