"""Procedural MCS scene generator: checked retrieval, traversal, transferral and intuitive-physics scenes in
deterministic, disjoint splits, with manifests, goal images and a viewer. See docs/scenes.md.

Entry points: `generate` (and the `mcs-plugin generate` / `view` subcommands in `mcs_plugin.scenes.cli`),
`ensure_default_dataset` (the dataset `make train` uses), `check_candidate` / `scene_failures` (the checks),
`NavGrid` (reachability), `view_scene` (the figure).
"""

from __future__ import annotations

from mcs_plugin.scenes.checks import CheckResult, check_candidate, scene_failures
from mcs_plugin.scenes.generator import (
    DEFAULT_DATASET_ROOT, DIFFICULTY_NAMES, GOALS, SPLITS, GenerationError, Summary, ensure_default_dataset,
    format_summary, generate, generate_one, scene_id, scene_seed, scene_to_json,
)
from mcs_plugin.scenes.manifest import read_manifest, scene_paths, write_manifest
from mcs_plugin.scenes.navgrid import NavGrid

__all__ = [
    "CheckResult", "check_candidate", "scene_failures", "DEFAULT_DATASET_ROOT", "DIFFICULTY_NAMES", "GOALS",
    "SPLITS", "GenerationError", "Summary", "ensure_default_dataset", "format_summary", "generate", "generate_one",
    "scene_id", "scene_seed", "scene_to_json", "read_manifest", "scene_paths", "write_manifest", "NavGrid",
    "view_scene",
]


def view_scene(scene, out, step: int = 0):
    """Write the map + first-person figure of a scene to a PNG (see mcs_plugin.scenes.view)."""
    from mcs_plugin.scenes.view import view_scene as _view

    return _view(scene, out, step)
