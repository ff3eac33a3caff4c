"""Dataset manifests: one JSON object per line (JSON Lines), one line per scene file, sorted by scene id.

Each line holds at least `id`, `path` (relative to the manifest's folder), `goal`, `category`, `difficulty`,
`split`, `seed` (the scene's own seed), `base_seed`, `index` and the scene's key parameters (target type,
distance, visible_at_start, n_obstacles, in_container, ...; see docs/scenes.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable

MANIFEST_NAME = "manifest.jsonl"


def record_line(record: dict[str, Any]) -> str:
    """A manifest record as one compact JSON line (no newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def read_manifest(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a manifest file (a folder means its manifest.jsonl); [] if there is none."""
    path = Path(path)
    if path.is_dir():
        path = path / MANIFEST_NAME
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_manifest(path: str | os.PathLike[str], records: Iterable[dict[str, Any]], merge: bool = True) -> Path:
    """Write records (merged with the file's existing ones by id when `merge`), sorted by id; returns the path."""
    path = Path(path)
    if path.is_dir() or not path.suffix:
        path = path / MANIFEST_NAME
    by_id: dict[str, dict[str, Any]] = {}
    if merge:
        by_id.update((r["id"], r) for r in read_manifest(path))
    by_id.update((r["id"], r) for r in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".jsonl.tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        for key in sorted(by_id):
            handle.write(record_line(by_id[key]) + "\n")
    os.replace(tmp, path)
    return path


def scene_paths(root: str | os.PathLike[str], split: str | None = None, goal: str | None = None,
                difficulty: str | None = None) -> list[Path]:
    """Absolute scene paths listed by a dataset's manifest, optionally filtered, in manifest (id) order."""
    root = Path(root)
    return [root / r["path"] for r in read_manifest(root)
            if (split is None or r["split"] == split) and (goal is None or r["goal"] == goal)
            and (difficulty is None or r["difficulty"] == difficulty)]
