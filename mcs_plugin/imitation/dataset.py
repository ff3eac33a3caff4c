"""Expert trajectory datasets: one compressed .npz per episode plus an index (JSON Lines).

Layout of a dataset directory:
    index.jsonl            one line per episode: {"episode", "file", "scene_path", "goal_category", "length", "success"}
    episode_000000.npz     rgb (T, H, W, 3) uint8, depth (T, H, W) float16 metres, actions (T,) int64
                           (index into the task's action vocabulary; step t's action is taken on frame t)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Sequence

import numpy as np
from tqdm import tqdm

from mcs_plugin.mcs import load_scene_json_file
from mcs_plugin.tasks import ActionVocabulary, task_class_for

INDEX = "index.jsonl"


@dataclass
class Episode:
    """One recorded expert episode."""

    scene_path: str
    goal_category: str
    rgb: np.ndarray
    depth: np.ndarray
    actions: np.ndarray
    success: bool

    def __len__(self) -> int:
        return len(self.actions)


def _frame(output) -> tuple[np.ndarray, np.ndarray]:
    rgb = np.asarray(output.image_list[-1], dtype=np.uint8)
    depth = output.depth_map_list[-1] if output.depth_map_list else np.zeros(rgb.shape[:2], np.float32)
    return rgb, depth.astype(np.float16)


def record_episode(controller, scene_path: Path, max_steps: int = 200) -> Optional[Episode]:
    """Run the goal's expert on a scene and record frames and action indices (None: scene has no expert)."""
    from mcs_plugin.experts import make_expert

    output = controller.start_scene(load_scene_json_file(scene_path))
    category = output.goal.category if output.goal is not None and output.goal.category else "retrieval"
    vocabulary = ActionVocabulary(task_class_for(category).default_actions)
    expert = make_expert(category)
    width, height = output.image_list[-1].size
    frames, depths, actions = [], [], []
    success = False
    for _ in range(max_steps):
        suggestion = expert.next_action(output)
        if suggestion is None:
            break
        try:
            index = vocabulary.index(suggestion[0])
        except ValueError:
            break
        rgb, depth = _frame(output)
        frames.append(rgb)
        depths.append(depth)
        actions.append(index)
        name, params = vocabulary[index].call(width, height)
        next_output = controller.step(name, **params)
        if next_output is None:
            break
        output = next_output
        success = success or float(output.reward or 0.0) > 0.0
        if success:  # the task ends the episode here
            break
    if not actions:
        return None
    return Episode(str(scene_path), category, np.stack(frames), np.stack(depths), np.array(actions, np.int64), success)


def write_dataset(episodes: Iterator[Episode], out: Path) -> int:
    """Write episodes and the index; returns how many were written."""
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    with open(out / INDEX, "w", encoding="utf-8") as index:
        for count, episode in enumerate(episodes, 1):
            name = f"episode_{count - 1:06d}.npz"
            np.savez_compressed(out / name, rgb=episode.rgb, depth=episode.depth, actions=episode.actions)
            entry = {"episode": count - 1, "file": name, "scene_path": episode.scene_path,
                     "goal_category": episode.goal_category, "length": len(episode), "success": episode.success}
            index.write(json.dumps(entry) + "\n")
    return count


def collect_expert_trajectories(scenes: Sequence[Path], out: Path, resolution: int = 64, max_steps: int = 200,
                                only_successful: bool = True, progress: bool = True) -> dict:
    """Record the expert on every scene; returns counts {"scenes", "episodes", "successful", "steps"}."""
    from mcs_plugin.sim.controller import EmbeddedController

    controller = EmbeddedController({"metadata": "oracle", "width": resolution, "height": resolution})
    stats = {"scenes": len(scenes), "episodes": 0, "successful": 0, "steps": 0}

    def episodes() -> Iterator[Episode]:
        for path in tqdm(scenes, desc="expert episodes", unit="scene",
                         disable=None if progress else True):  # None: drawn only when stderr is a terminal
            episode = record_episode(controller, Path(path), max_steps)
            if episode is None:
                continue
            stats["successful"] += int(episode.success)
            if only_successful and not episode.success:
                continue
            stats["steps"] += len(episode)
            yield episode

    stats["episodes"] = write_dataset(episodes(), Path(out))
    controller.stop_simulation()
    return stats


def read_index(dataset: Path) -> list[dict]:
    """The index entries of a dataset; FileNotFoundError naming the directory when it has none."""
    path = Path(dataset) / INDEX
    if not path.is_file():
        raise FileNotFoundError(f"{dataset} is not an expert trajectory dataset (no {INDEX}); "
                                f"make one with `mcs-plugin collect-expert`")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_episode(dataset: Path, entry: dict) -> Episode:
    """Load one episode of a dataset."""
    with np.load(Path(dataset) / entry["file"]) as data:
        return Episode(entry["scene_path"], entry["goal_category"], data["rgb"], data["depth"].astype(np.float32),
                       data["actions"], bool(entry["success"]))
