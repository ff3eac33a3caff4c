"""Episode films: the agent's view beside a top-down map of the room with the path so far (GIF, via imageio)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import imageio.v2 as imageio
import numpy as np
from PIL import Image, ImageDraw

from mcs_plugin.geometry import convex_hull

PANEL = 256  # pixels per side of each panel
FPS = 8
COLORS = {"room": (236, 236, 230), "object": (120, 130, 150), "structure": (90, 90, 90), "target": (30, 160, 60),
          "lava": (230, 90, 30), "hole": (20, 20, 20), "path": (40, 90, 220), "agent": (220, 40, 40)}


def _footprint(corners: list[dict]) -> np.ndarray:
    """The x-z outline (k, 2) of an object's bounding-box corners."""
    points = np.array([[c["x"], c["z"]] for c in corners], float)
    hull = convex_hull(points)
    if len(hull) >= 3:
        return hull
    low, high = points.min(axis=0), points.max(axis=0)  # flat or degenerate: its axis-aligned box
    return np.array([[low[0], low[1]], [high[0], low[1]], [high[0], high[1]], [low[0], high[1]]])


class EpisodeFilm:
    """Collects an episode's frames; the map is drawn once from the first step's oracle metadata."""

    def __init__(self, first_output, target_id: Optional[str] = None):
        room = first_output.room_dimensions or {"x": 10.0, "z": 10.0}
        self.half = (float(room["x"]) / 2, float(room["z"]) / 2)
        self.scale = (PANEL - 16) / max(2 * self.half[0], 2 * self.half[1])
        self.background = self._draw_room(first_output, target_id)
        self.path: list[tuple[float, float]] = []
        self.frames: list[np.ndarray] = []
        self.add(first_output)

    def _px(self, x: float, z: float) -> tuple[float, float]:
        """Map pixel of a world x-z point (+z up on the map)."""
        return PANEL / 2 + x * self.scale, PANEL / 2 - z * self.scale

    def _draw_room(self, output, target_id: Optional[str]) -> Image.Image:
        image = Image.new("RGB", (PANEL, PANEL), (255, 255, 255))
        draw = ImageDraw.Draw(image)
        draw.rectangle([self._px(-self.half[0], self.half[1]), self._px(self.half[0], -self.half[1])],
                       fill=COLORS["room"], outline=(0, 0, 0))
        for cell in output.lava or []:
            x0, z0, x1, z1 = (float(v) for v in cell)
            draw.rectangle([self._px(min(x0, x1), max(z0, z1)), self._px(max(x0, x1), min(z0, z1))], fill=COLORS["lava"])
        for hole in output.holes or []:
            hx, hz = float(hole[0]), float(hole[1])
            draw.rectangle([self._px(hx - 0.5, hz + 0.5), self._px(hx + 0.5, hz - 0.5)], fill=COLORS["hole"])
        room_area = 4 * self.half[0] * self.half[1]
        for kind, objects in (("structure", output.structural_object_list), ("object", output.object_list)):
            for obj in objects:
                if not obj.dimensions or obj.held:
                    continue
                outline = _footprint(obj.dimensions)
                span = np.ptp(outline, axis=0)
                if kind == "structure" and span[0] * span[1] > 0.5 * room_area:
                    continue  # floor and ceiling
                colour = COLORS["target"] if obj.uuid == target_id else COLORS[kind]
                draw.polygon([self._px(x, z) for x, z in outline], fill=colour)
        return image

    def add(self, output) -> None:
        """Add the frame of one step output."""
        if output.position is not None:
            self.path.append((float(output.position["x"]), float(output.position["z"])))
        view = output.image_list[-1].resize((PANEL, PANEL), Image.NEAREST) if output.image_list else \
            Image.new("RGB", (PANEL, PANEL))
        world = self.background.copy()
        draw = ImageDraw.Draw(world)
        if len(self.path) > 1:
            draw.line([self._px(x, z) for x, z in self.path], fill=COLORS["path"], width=2)
        if self.path and output.rotation is not None:
            x, z = self.path[-1]
            yaw = math.radians(float(output.rotation))
            cx, cy = self._px(x, z)
            tip = self._px(x + 0.35 * math.sin(yaw), z + 0.35 * math.cos(yaw))
            draw.ellipse([cx - 4, cy - 4, cx + 4, cy + 4], fill=COLORS["agent"])
            draw.line([(cx, cy), tip], fill=COLORS["agent"], width=2)
        frame = Image.new("RGB", (2 * PANEL, PANEL))
        frame.paste(view, (0, 0))
        frame.paste(world, (PANEL, 0))
        self.frames.append(np.asarray(frame))

    def save(self, path: str | Path, caption: str = "") -> Path:
        """Write the GIF (the last frame held for a second, with the caption on it)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        frames = list(self.frames)
        if caption and frames:
            last = Image.fromarray(frames[-1])
            ImageDraw.Draw(last).text((4, PANEL - 14), caption[:80], fill=(255, 255, 0))
            frames[-1] = np.asarray(last)
        frames += frames[-1:] * FPS
        imageio.mimsave(path, frames, duration=1.0 / FPS, loop=0)
        return path
