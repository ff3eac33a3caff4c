"""Run a trained policy on scenes, one episode per scene, and summarise per goal category and per MCS evaluation
task family (Eval-7 families, read from the scene's file name or its own `name`)."""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import torch
from tqdm import tqdm

from mcs_plugin.evaluation.policy import TrainedPolicy
from mcs_plugin.samplers import MCSSceneTaskSampler, list_scenes
from mcs_plugin.scenes.families import family_of

SUMMARY_METRICS = ("success", "spl", "ep_length", "distance_to_target")


@dataclass
class EpisodeRecord:
    """One evaluated episode: its scene and how it went."""

    scene: str
    goal_category: str
    difficulty: Optional[str]
    success: float
    spl: Optional[float]
    ep_length: int
    distance_to_target: Optional[float]
    reward: float
    ended: str
    family: str = "other"  # the MCS evaluation task family (`mcs_plugin.scenes.families.family_of`)
    video: Optional[str] = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """JSON-ready fields."""
        return asdict(self)


def _record(task: Any, video: Optional[Path]) -> EpisodeRecord:
    metrics = task.metrics()
    info = metrics.get("task_info", {})
    scene = str(info.get("scene_path") or task.task_info.get("scene_path"))
    return EpisodeRecord(scene=scene,
                         goal_category=str(task.task_info.get("goal_category")), difficulty=info.get("difficulty"),
                         success=float(metrics.get("success", 0.0)), spl=metrics.get("spl"),
                         ep_length=int(metrics.get("ep_length", task.num_steps_taken())),
                         distance_to_target=metrics.get("distance_to_target"), reward=float(metrics.get("reward", 0.0)),
                         ended=str(info.get("ended", "")), family=family_of(scene, task.task_info.get("scene_name")),
                         video=None if video is None else str(video))


def evaluate(policy: TrainedPolicy, scenes: Sequence[str], greedy: bool = False, seed: int = 0,
             video_dir: Optional[str | Path] = None, max_steps: Optional[int] = None,
             progress: Optional[bool] = None) -> list[EpisodeRecord]:
    """One episode per scene (of the experiment's goal categories) with the policy acting; a GIF per episode
    (agent view beside the top-down map) when `video_dir` is given."""
    config = policy.config
    paths = list_scenes(list(scenes))
    args = config._sampler_args("test", paths, "test", 0, 1, None)
    args.update(sensors=policy.sensors(), seed=seed, strict=False)
    if max_steps is not None:
        args["max_steps"] = max_steps
    sampler = MCSSceneTaskSampler(**args)
    generator = torch.Generator().manual_seed(seed)
    records: list[EpisodeRecord] = []
    show = sys.stderr.isatty() if progress is None else progress
    bar = tqdm(total=sampler.total_unique, desc="episodes", unit="episode", disable=not show)
    try:
        while (task := sampler.next_task()) is not None:
            state = policy.start()
            film = None
            if video_dir is not None:
                from mcs_plugin.evaluation.video import EpisodeFilm

                film = EpisodeFilm(task.env.last_output, task.target_id(task.env.last_output))
            while not task.is_done():
                task.step(state.act(task.get_observations(), greedy=greedy, generator=generator))
                if film is not None:
                    film.add(task.env.last_output)
            path = None
            if film is not None:
                name = Path(task.task_info.get("scene_path", f"episode_{len(records)}")).stem
                path = film.save(Path(video_dir) / f"{len(records):04d}_{name}.gif",
                                 caption=f"{name}: {task.end_reason()} after {task.num_steps_taken()} steps")
            records.append(_record(task, path))
            bar.update(1)
    finally:
        bar.close()
        sampler.close()
    return records


def summarise(records: Sequence[EpisodeRecord]) -> dict[str, Any]:
    """Means of success, SPL, episode length and final distance: overall, per goal category and per family."""
    def means(group: Sequence[EpisodeRecord]) -> dict[str, Any]:
        out: dict[str, Any] = {"episodes": len(group)}
        for name in SUMMARY_METRICS:
            values = [getattr(r, name) for r in group if getattr(r, name) is not None]
            out[name] = sum(values) / len(values) if values else None
        return out

    by_category: dict[str, list[EpisodeRecord]] = defaultdict(list)
    by_family: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for record in records:
        by_category[record.goal_category].append(record)
        by_family[record.family].append(record)
    return {**means(records), "by_category": {k: means(v) for k, v in sorted(by_category.items())},
            "by_family": {k: means(v) for k, v in sorted(by_family.items())}}


def format_report(records: Sequence[EpisodeRecord]) -> str:
    """Summary tables per goal category and per family, and a per-scene table, as text."""
    def number(value: Any, digits: int = 2) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    summary = summarise(records)
    def table(title: str, rows: list) -> list[str]:
        out = [f"{title:<28} episodes  success   spl  ep_length  distance (m)"]
        for name, row in rows:
            out.append(f"{name[:28]:<28} {row['episodes']:>8}  {number(row['success']):>7}  {number(row['spl']):>4}  "
                       f"{number(row['ep_length'], 1):>9}  {number(row['distance_to_target']):>12}")
        return out

    lines = table("goal category", list(summary["by_category"].items()) + [("all", summary)])
    lines += [""] + table("family", list(summary["by_family"].items()) + [("all", summary)])
    lines += ["", f"{'scene':<48} success  steps  ended"]
    for r in records:
        lines.append(f"{Path(r.scene).name[:48]:<48} {int(r.success):>7}  {r.ep_length:>5}  {r.ended}")
    return "\n".join(lines)
