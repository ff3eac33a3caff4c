"""`mcs-plugin view`: one PNG per scene for people who would rather look than read.

Left: a top-down map (room outline, every object's oriented footprint from the simulator, labelled with a short
id, goal targets filled red, objects that appear later dashed, the performer's start disc with a heading arrow).
Right: the first-person RGB, depth (metres, colour bar) and instance-mask frames of the embedded simulator at
the start (or after `step` Pass actions), and a text panel with the goal (and its goal image, if any).
The figure is `FIGURE_SIZE` pixels (matplotlib, Agg backend).
"""

from __future__ import annotations

import math
import os
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

FIGURE_SIZE = (1600, 800)  # pixels (width, height)
_DPI = 100
_FAR = 150.0  # camera far clipping plane (m): depth there means "nothing hit"
_ROOM_STRUCTURE = {"ceiling", "floor", "wall_back", "wall_front", "wall_left", "wall_right"}


def _short(object_id: str) -> str:
    for prefix in ("occluder_wall_", "occluder_pole_", "wall_"):
        if object_id.startswith(prefix):
            return prefix.rstrip("_").replace("occluder_", "occ_") + ":" + object_id[len(prefix):][:4]
    return object_id[:8]


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (monotone chain) of 2-D points, counter-clockwise."""
    pts = sorted(set(map(tuple, np.round(points, 6))))
    if len(pts) <= 2:
        return np.array(pts)

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return np.array(lower[:-1] + upper[:-1])


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


def _draw_map(ax, controller, scene: dict[str, Any]) -> None:
    from matplotlib.patches import Circle, FancyArrow, Polygon, Rectangle

    world, performer = controller.world, controller.performer
    dims = scene.get("roomDimensions") or {}
    rx, rz = float(dims.get("x") or 10), float(dims.get("z") or 10)
    targets = set(controller.goal.target_ids()) if controller.goal else set()
    ax.add_patch(Rectangle((-rx / 2, -rz / 2), rx, rz, fill=False, lw=2.5, ec="black"))
    xs, zs = [-rx / 2, rx / 2], [-rz / 2, rz / 2]
    for obj in world.objects:
        if obj.is_floor or obj.id in _ROOM_STRUCTURE or obj.held:
            continue
        corners = world.world_bounds(obj)
        hull = _hull(corners[:, :2])
        if len(hull) < 3:
            continue
        is_target = obj.id in targets
        face = "#e53935" if is_target else ("#90a4ae" if obj.structural else "#ffcc80")
        ax.add_patch(Polygon(hull, closed=True, fc=face if obj.present else "none", ec="#37474f", lw=1.0,
                             ls="-" if obj.present else "--", alpha=0.85, zorder=3 if is_target else 2))
        cx, cz = hull.mean(axis=0)
        ax.text(cx, cz, _short(obj.id), fontsize=6.5, ha="center", va="center", zorder=5,
                color="white" if is_target else "black", fontweight="bold" if is_target else "normal")
        xs += list(hull[:, 0])
        zs += list(hull[:, 1])
    px, pz, yaw = performer.x, performer.z, math.radians(performer.yaw)
    ax.add_patch(Circle((px, pz), 0.25, fc="#1e88e5", ec="black", zorder=6))
    ax.add_patch(FancyArrow(px, pz, 0.7 * math.sin(yaw), 0.7 * math.cos(yaw), width=0.06, head_width=0.22,
                            color="#0d47a1", zorder=7))
    xs.append(px)
    zs.append(pz)
    pad = 0.5
    lo_x, hi_x = min(xs) - pad, max(xs) + pad
    lo_z, hi_z = min(zs) - pad, max(zs) + pad
    if scene.get("intuitivePhysics"):
        lo_x, hi_x = max(lo_x, -7.0), min(hi_x, 7.0)
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(lo_z, hi_z)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.grid(True, lw=0.3, alpha=0.5)
    ax.set_title("top-down: performer (blue), targets (red), later objects dashed", fontsize=9)


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
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    from mcs_plugin.mcs import load_scene_json_file

    scene = scene_path if isinstance(scene_path, dict) else load_scene_json_file(scene_path)
    controller, output = scene_frames(scene, step)
    fig = Figure(figsize=(FIGURE_SIZE[0] / _DPI, FIGURE_SIZE[1] / _DPI), dpi=_DPI)
    grid = fig.add_gridspec(2, 3, width_ratios=[1.25, 1, 1], left=0.05, right=0.97, top=0.93, bottom=0.07,
                            wspace=0.22, hspace=0.25)
    _draw_map(fig.add_subplot(grid[:, 0]), controller, scene)
    rgb = np.asarray(output.image_list[0]) if output.image_list else np.zeros((400, 600, 3), np.uint8)
    ax = fig.add_subplot(grid[0, 1])
    ax.imshow(rgb)
    ax.set_title(f"RGB (step {output.step_number})", fontsize=9)
    ax.axis("off")
    ax = fig.add_subplot(grid[0, 2])
    if output.depth_map_list:
        depth = np.array(output.depth_map_list[0], dtype=np.float32)
        depth[~np.isfinite(depth) | (depth <= 0) | (depth >= 0.99 * _FAR)] = np.nan  # sky / nothing: blank
        shown = ax.imshow(np.ma.masked_invalid(depth), cmap="viridis")
        fig.colorbar(shown, ax=ax, fraction=0.035, pad=0.02, label="m")
    ax.set_title("depth", fontsize=9)
    ax.axis("off")
    ax = fig.add_subplot(grid[1, 1])
    if output.object_mask_list:
        ax.imshow(np.asarray(output.object_mask_list[0]))
    ax.set_title("instance mask", fontsize=9)
    ax.axis("off")
    ax = fig.add_subplot(grid[1, 2])
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
    plt.close("all")
    return out
