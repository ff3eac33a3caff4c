"""`mcs-plugin view`: one PNG per scene for people who would rather look than read.

Left: a top-down map (`topdown.py`: room, lava, holes, every object's footprint coloured by role, ramps' uphill
arrows, objects held by agents, the performer's disc with a heading arrow; numbered labels keyed by type and id).
Right: the first-person RGB, depth (metres, colour bar) and instance-mask frames of the embedded simulator at
the start (or after `step` Pass actions), and a text panel with the goal (and its goal image, if any).
The figure is `FIGURE_SIZE` pixels (matplotlib, Agg backend).
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from mcs_plugin.constants import CLIPPING_PLANES

FIGURE_SIZE = (1800, 800)  # pixels (width, height)
_DPI = 100
_FAR = CLIPPING_PLANES[1]  # camera far clipping plane (m): depth there means "nothing hit"


def scene_frames(scene: dict[str, Any] | str | os.PathLike, step: int = 0, width: int = 600, height: int = 400):
    """Run a scene in the embedded simulator (oracle, rendering) for `step` Pass actions; returns
    (controller, output) so callers can read the world and the frames."""
    from mcs_plugin.sim.controller import EmbeddedController

    controller = EmbeddedController({"metadata": "oracle", "width": width, "height": height, "render": True})
    output = controller.start_scene(scene if isinstance(scene, dict) else str(scene))
    for _ in range(int(step)):
        nxt = controller.step("Pass")
        if nxt is None:
            break
        output = nxt
    return controller, output


def _as_image(value: Any) -> np.ndarray | None:
    """A goal image as an RGB array (nested lists, or a JSON string of them as some MCS files have), else None."""
    try:
        if isinstance(value, str):
            import json

            value = json.loads(value)
        image = np.asarray(value, dtype=np.uint8)
    except (ValueError, TypeError):
        return None
    return image if image.ndim == 3 and image.shape[2] in (3, 4) else None


def _goal_text(scene: dict[str, Any], controller) -> tuple[str, Any]:
    goal = scene.get("goal") or {}
    metadata = goal.get("metadata") or {}
    lines = [f"scene: {scene.get('name', '')}", f"category: {goal.get('category', '-')}"]
    if goal.get("description"):
        lines += textwrap.wrap(f"description: {goal['description']}", 60)
    image = None
    by_id = {o.get("id"): o for o in scene.get("objects") or []}
    for key in ("target", "target_1", "target_2"):
        entry = metadata.get(key)
        if isinstance(entry, dict):
            obj = by_id.get(entry.get("id"), {})
            lines.append(f"{key}: {str(entry.get('id', ''))[:13]} ({obj.get('type', '?')})")
            if image is None and entry.get("image") is not None:
                image = _as_image(entry["image"])
    if "relationship" in metadata:
        lines.append("relationship: " + " ".join(map(str, metadata["relationship"])))
    answer = goal.get("answer")
    if isinstance(answer, dict) and answer.get("choice"):
        lines.append(f"answer: {answer['choice']}")
    lines.append(f"last_step: {goal.get('last_step', '-')}")
    p = controller.performer
    lines.append(f"performer: x={p.x:.2f} z={p.z:.2f} yaw={p.yaw:.0f} tilt={p.tilt:.0f}")
    dims = scene.get("roomDimensions") or {}
    lines.append(f"room: {dims.get('x', 10)} x {dims.get('z', 10)} m, objects: {len(scene.get('objects') or [])}")
    return "\n".join(lines), image


def view_scene(scene_path: str | os.PathLike | dict[str, Any], out: str | os.PathLike, step: int = 0) -> Path:
    """Write the map + first-person figure of a scene (file path or dict) to `out` (PNG); returns the path."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from mcs_plugin.mcs import load_scene_json_file
    from mcs_plugin.scenes.topdown import draw_map

    scene = scene_path if isinstance(scene_path, dict) else load_scene_json_file(scene_path)
    controller, output = scene_frames(scene, step)
    fig = Figure(figsize=(FIGURE_SIZE[0] / _DPI, FIGURE_SIZE[1] / _DPI), dpi=_DPI)
    canvas = FigureCanvasAgg(fig)
    grid = fig.add_gridspec(2, 4, width_ratios=[1.3, 0.55, 1, 1], left=0.04, right=0.97, top=0.93, bottom=0.07,
                            wspace=0.2, hspace=0.25)
    draw_map(fig.add_subplot(grid[:, 0]), fig.add_subplot(grid[:, 1]), controller, scene, canvas.get_renderer())
    rgb = np.asarray(output.image_list[0]) if output.image_list else np.zeros((400, 600, 3), np.uint8)
    ax = fig.add_subplot(grid[0, 2])
    ax.imshow(rgb)
    ax.set_title(f"RGB (step {output.step_number})", fontsize=9)
    ax.axis("off")
    ax = fig.add_subplot(grid[0, 3])
    if output.depth_map_list:
        depth = np.array(output.depth_map_list[0], dtype=np.float32)
        depth[~np.isfinite(depth) | (depth <= 0) | (depth >= 0.99 * _FAR)] = np.nan  # sky / nothing: blank
        shown = ax.imshow(np.ma.masked_invalid(depth), cmap="viridis")
        fig.colorbar(shown, ax=ax, fraction=0.035, pad=0.02, label="m")
    ax.set_title("depth", fontsize=9)
    ax.axis("off")
    ax = fig.add_subplot(grid[1, 2])
    if output.object_mask_list:
        ax.imshow(np.asarray(output.object_mask_list[0]))
    ax.set_title("instance mask", fontsize=9)
    ax.axis("off")
    ax = fig.add_subplot(grid[1, 3])
    ax.axis("off")
    text, image = _goal_text(scene, controller)
    ax.text(0.0, 1.0, text, fontsize=8, va="top", ha="left", family="monospace", transform=ax.transAxes)
    if image is not None and image.ndim == 3:
        inset = ax.inset_axes([0.68, 0.0, 0.32, 0.42])
        inset.imshow(image)
        inset.set_title("goal image", fontsize=7)
        inset.axis("off")
    fig.suptitle(str(scene.get("name", "")), fontsize=11)
    controller.stop_simulation()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=_DPI, format="png")
    return out
