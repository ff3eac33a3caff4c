"""Scene lists: directories, globs and manifests of MCS scene JSON, split disjointly across processes."""

from __future__ import annotations

import functools
import glob
import json
import os
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

SceneSource = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]


def _expand(source: Union[str, os.PathLike]) -> list[Path]:
    path = Path(source)
    if path.is_dir():
        return sorted(p for p in path.rglob("*.json") if p.is_file())
    if path.suffix == ".jsonl" and path.is_file():
        scenes = []
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON line ({error.msg})") from None
            if "path" not in entry:
                raise ValueError(f"{path}:{number}: manifest entry has no 'path'")
            scenes.append((path.parent / entry["path"]).resolve() if not Path(entry["path"]).is_absolute() else Path(entry["path"]))
        return scenes
    if path.is_file():
        return [path]
    matches = sorted(Path(p) for p in glob.glob(str(source), recursive=True))
    if not matches:
        raise FileNotFoundError(f"no scene files found at {source!s} (a directory, glob, .jsonl manifest or file)")
    return matches


def list_scenes(sources: SceneSource) -> list[Path]:
    """All scene files named by directories, globs, manifest files (.jsonl with 'path') or files; sorted, unique."""
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    seen: dict[str, Path] = {}
    for source in sources:
        for path in _expand(source):
            seen.setdefault(str(path), path)
    return sorted(seen.values())


def partition(scenes: Sequence[Path], process_ind: int, total_processes: int, oversample: bool = False) -> list[Path]:
    """This process's share: every `total_processes`-th scene from `process_ind`.

    Shares are disjoint and together cover every scene. With more processes than scenes, a process
    with an empty share gets one scene (`process_ind % len(scenes)`) when `oversample` (training),
    else nothing.
    """
    if not 0 <= process_ind < total_processes:
        raise ValueError(f"process_ind {process_ind} must be in [0, {total_processes})")
    share = list(scenes[process_ind::total_processes])
    if not share and oversample and scenes:
        share = [scenes[process_ind % len(scenes)]]
    return share


def read_manifest_info(sources: Iterable) -> dict[str, dict]:
    """Manifest entries (JSON Lines) by resolved scene path, for the manifests among `sources`."""
    info: dict[str, dict] = {}
    for source in [sources] if isinstance(sources, (str, os.PathLike)) else sources:
        path = Path(source)
        if path.suffix == ".jsonl" and path.is_file():
            for line in path.read_text().splitlines():
                if line.strip():
                    entry = json.loads(line)
                    info[str((path.parent / entry["path"]).resolve())] = entry
    return info


def scene_goal_category(path: Path) -> Optional[str]:
    """A scene file's goal category (None when it has no goal or cannot be read)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return _goal_category(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=65536)
def _goal_category(path: str, mtime_ns: int, size: int) -> Optional[str]:
    """`scene_goal_category` of one version of a file (the samplers of a process each filter the same scenes)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None
    goal = data.get("goal") if isinstance(data, dict) else None
    return goal.get("category") if isinstance(goal, dict) else None
