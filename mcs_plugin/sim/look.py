"""Lighting and texture settings of the renderer: the fixed default, and seeded random ones for training.

A `Look` holds what the shaders take as uniforms: a key and a fill directional light (directions towards the
lights, MuJoCo world frame, z up), ambient light, the lights' colour, and how the procedural surface patterns
(`mcs_plugin.sim.surfaces`) are placed, scaled and weighted. `random_look(rng)` draws one from a
`random.Random`, so a seeded stream gives the same looks in the same order.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

__all__ = ["DEFAULT_LOOK", "Look", "random_look"]

Vec3 = tuple[float, float, float]


def _unit(x: float, y: float, z: float) -> Vec3:
    """(x, y, z) scaled to length 1."""
    n = math.sqrt(x * x + y * y + z * z)
    return (x / n, y / n, z / n)


def _towards(azimuth_deg: float, elevation_deg: float) -> Vec3:
    """Unit direction at an azimuth (degrees about z from +x) and elevation above the horizon."""
    a, e = math.radians(azimuth_deg), math.radians(elevation_deg)
    return (math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e))


@dataclass(frozen=True)
class Look:
    """Lights (directions towards them, strengths, colour) and pattern placement, scale and strength."""

    key: Vec3 = _unit(0.4, -0.6, 0.8)
    fill: Vec3 = _unit(-1.0, 1.0, 1.0)
    ambient: float = 0.45
    key_strength: float = 0.45
    fill_strength: float = 0.2
    light_rgb: Vec3 = (1.0, 1.0, 1.0)
    pattern_offset: Vec3 = (0.0, 0.0, 0.0)  # metres added to the pattern coordinates (shifts every pattern)
    pattern_scale: float = 1.0  # multiplies the pattern frequencies
    pattern_strength: float = 1.0  # multiplies the pattern amplitudes


DEFAULT_LOOK = Look()


def random_look(rng: random.Random) -> Look:
    """A look drawn from rng: key light anywhere around at 35-75 degrees up, a fill light roughly opposite,
    ambient and strengths around the default's, a warm or cool tint, patterns shifted, rescaled, reweighted."""
    key_azimuth = rng.uniform(0.0, 360.0)
    warmth = rng.uniform(-1.0, 1.0)
    return Look(
        key=_towards(key_azimuth, rng.uniform(35.0, 75.0)),
        fill=_towards(key_azimuth + 180.0 + rng.uniform(-45.0, 45.0), rng.uniform(20.0, 50.0)),
        ambient=rng.uniform(0.35, 0.55),
        key_strength=rng.uniform(0.3, 0.6),
        fill_strength=rng.uniform(0.1, 0.3),
        light_rgb=(1.0 + 0.08 * warmth, 1.0, 1.0 - 0.08 * warmth),
        pattern_offset=(rng.uniform(-10.0, 10.0), rng.uniform(-10.0, 10.0), rng.uniform(-10.0, 10.0)),
        pattern_scale=rng.uniform(0.7, 1.4),
        pattern_strength=rng.uniform(0.5, 1.5),
    )
