"""Obstacle distances: the culled query (`within`) agrees with the dense one wherever it promises to."""

from __future__ import annotations

import numpy as np

from mcs_plugin.geometry import Obstacles, convex_hull


def _random_obstacles(rng: np.random.Generator, count: int) -> Obstacles:
    """Convex hulls of a few random points each, scattered over a 10 x 10 m room (points and segments included)."""
    polygons = []
    for _ in range(count):
        centre = rng.uniform(-5, 5, size=2)
        polygons.append(convex_hull(centre + rng.normal(scale=0.4, size=(rng.integers(1, 9), 2))))
    return Obstacles(polygons)


def test_culled_distances_equal_the_dense_ones_within_the_bound():
    rng = np.random.default_rng(7)
    obstacles = _random_obstacles(rng, 25)
    points = rng.uniform(-6, 6, size=(3000, 2))
    dense = obstacles.distances(points)
    culled = obstacles.distances(points, within=0.45)
    close = dense <= 0.45
    assert close.any() and (~close).any()
    np.testing.assert_array_equal(culled[close], dense[close])
    far = ~close
    assert np.all((culled[far] == dense[far]) | np.isinf(culled[far]))
    assert (dense == 0).any()  # some points fall inside a polygon, and read 0 both ways
    np.testing.assert_array_equal(culled[dense == 0], 0.0)


def test_no_obstacles_gives_an_empty_matrix():
    assert Obstacles([]).distances(np.zeros((4, 2)), within=0.3).shape == (4, 0)
    assert Obstacles([]).distances(np.zeros((4, 2))).shape == (4, 0)
