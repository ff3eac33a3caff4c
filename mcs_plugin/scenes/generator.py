"""The scene generator: deterministic, checked MCS scenes in splits, written with a manifest and a summary.

Determinism and splits
- Scene `index` of a run gets its own seed, `scene_seed(goal, difficulty, split, seed, index)` (SHA-256 of those
  five values), and candidate `attempt` of that scene draws from `random.Random(scene_seed * 1000 + attempt)`.
  A scene is therefore a pure function of (goal, difficulty, split, seed, index): the same bytes whichever worker
  makes it, and the train / val / test streams are different by construction.
- Scene ids name all five (`retrieval-easy-train-s0-00012`), so ids never collide across splits or seeds.

Output (`out` folder): `<split>/<id>.json` per scene and `manifest.jsonl` (merged by id with what is already
there, sorted by id). Candidates that fail a check (`mcs_plugin.scenes.checks`) are counted by reason and the
next attempt is drawn; the summary table reports them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from mcs_plugin.scenes.candidate import Candidate, PlacementFailed
from mcs_plugin.scenes.checks import check_candidate
from mcs_plugin.scenes.manifest import MANIFEST_NAME, write_manifest

GOALS = ("retrieval", "traversal", "transferral", "intuitive_physics")
SPLITS = ("train", "val", "test")
DIFFICULTY_NAMES = ("easy", "medium", "hard")
CATEGORY_OF = {"retrieval": "retrieval", "traversal": "traversal", "transferral": "transferral",
               "intuitive_physics": "intuitive physics"}
DEFAULT_IMAGE_SIZE = 64
MAX_ATTEMPTS = 200


class GenerationError(RuntimeError):
    """A scene could not be generated within the attempt limit."""


def scene_seed(goal: str, difficulty: str, split: str, seed: int, index: int) -> int:
    """The seed of one scene: a 63-bit hash of (goal, difficulty, split, base seed, index)."""
    text = f"mcs-plugin-scenes|{goal}|{difficulty}|{split}|{int(seed)}|{int(index)}"
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1


def scene_id(goal: str, difficulty: str, split: str, seed: int, index: int) -> str:
    """The id (and file stem) of one scene, e.g. 'retrieval-easy-train-s0-00012'."""
    return f"{goal}-{difficulty}-{split}-s{int(seed)}-{int(index):05d}"


def _builder(goal: str, index: int) -> Callable[[random.Random, str, str], list[Candidate]]:
    if goal == "intuitive_physics":
        from mcs_plugin.scenes.intuitive_physics import SCENARIOS, build_pair

        scenario = SCENARIOS[index % len(SCENARIOS)]  # balanced: the scenarios take turns
        return lambda rng, difficulty, name: build_pair(rng, difficulty, name, scenario)
    from mcs_plugin.scenes import interactive

    single = {"retrieval": interactive.build_retrieval, "traversal": interactive.build_traversal,
              "transferral": interactive.build_transferral}[goal]
    return lambda rng, difficulty, name: [single(rng, difficulty, name)]


def scene_to_json(scene: dict[str, Any]) -> str:
    """Scene JSON text: 2-space indented, goal images written compactly on one line each, trailing newline."""
    images: list[Any] = []
    goal = scene.get("goal") or {}
    metadata = goal.get("metadata") or {}
    shallow = dict(scene)
    if any(isinstance(v, dict) and "image" in v for v in metadata.values()):
        new_metadata = {}
        for key, value in metadata.items():
            if isinstance(value, dict) and "image" in value:
                value = dict(value)
                images.append(value["image"])
                value["image"] = f"@@IMAGE{len(images) - 1}@@"
            new_metadata[key] = value
        shallow["goal"] = {**goal, "metadata": new_metadata}
    if "action_list" in goal:
        action_list = goal["action_list"]
        shallow["goal"] = {**shallow.get("goal", goal), "action_list": "@@ACTIONS@@"}
    text = json.dumps(shallow, indent=2, ensure_ascii=False)
    for i, image in enumerate(images):
        text = text.replace(f'"@@IMAGE{i}@@"', json.dumps(image, separators=(",", ":")))
    if "action_list" in goal:
        text = text.replace('"@@ACTIONS@@"', json.dumps(action_list, separators=(",", ":")))
    return text + "\n"


@dataclass
class SceneResult:
    """What one scene index produced: the scenes (1, or 2 for an intuitive-physics pair) with their manifest
    records, the rejected candidates by reason, and how many candidates were drawn."""

    index: int
    scenes: list[tuple[str, dict[str, Any], dict[str, Any]]]  # (id, scene, manifest record)
    rejected: Counter
    attempts: int


def generate_one(goal: str, difficulty: str, split: str, seed: int, index: int,
                 image_size: int = DEFAULT_IMAGE_SIZE, max_attempts: int = MAX_ATTEMPTS) -> SceneResult:
    """Draw candidates for one scene index until one passes every check; add goal images; build its records."""
    if goal not in GOALS:
        raise ValueError(f"unknown goal {goal!r}; choose from {', '.join(GOALS)}")
    if difficulty not in DIFFICULTY_NAMES:
        raise ValueError(f"unknown difficulty {difficulty!r}; choose from {', '.join(DIFFICULTY_NAMES)}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    build = _builder(goal, index)
    own_seed = scene_seed(goal, difficulty, split, seed, index)
    name = scene_id(goal, difficulty, split, seed, index)
    rejected: Counter = Counter()
    for attempt in range(max_attempts):
        rng = random.Random(own_seed * 1000 + attempt)
        try:
            candidates = build(rng, difficulty, name)
        except PlacementFailed:
            rejected["placement_failed"] += 1
            continue
        results = [check_candidate(c) for c in candidates]
        failed = next((r for r in results if not r.ok), None)
        if failed is not None:
            rejected[failed.reason] += 1
            continue
        scenes = []
        for candidate, result in zip(candidates, results):
            scene = candidate.scene
            if image_size and candidate.image_targets:
                from mcs_plugin.scenes.images import render_target_image

                by_id = {o["id"]: o for o in scene["objects"]}
                for key, object_id in candidate.image_targets.items():
                    scene["goal"]["metadata"][key]["image"] = render_target_image(by_id[object_id], image_size)
            record: dict[str, Any] = {
                "id": scene["name"], "path": f"{split}/{scene['name']}.json", "goal": goal,
                "category": CATEGORY_OF[goal], "difficulty": difficulty, "split": split, "seed": own_seed,
                "base_seed": int(seed), "index": int(index), "attempt": attempt,
            }
            record.update(candidate.params)
            record.update(result.measured)
            scenes.append((scene["name"], scene, record))
        return SceneResult(index, scenes, rejected, attempt + 1)
    raise GenerationError(f"{name}: no candidate passed the checks in {max_attempts} attempts "
                          f"(rejected: {dict(rejected)})")


def _worker_init() -> None:
    os.environ.setdefault("LP_NUM_THREADS", "0")  # llvmpipe: render in the worker's own thread


def _generate_task(args: tuple) -> SceneResult:
    return generate_one(*args)


@dataclass
class Summary:
    """Totals of a generation run (printed as a table by `format_summary`)."""

    goal: str
    difficulty: str
    split: str
    seed: int
    requested: int
    written: int = 0
    candidates: int = 0
    rejected: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)
    out: str = ""

    @property
    def scenes_per_second(self) -> float:
        """Scenes written per wall-clock second."""
        return self.written / self.seconds if self.seconds > 0 else 0.0


def generate(goal: str, count: int, split: str = "train", difficulty: str = "easy", seed: int = 0,
             out: str | os.PathLike[str] = "scenes", workers: int = 1, image_size: int = DEFAULT_IMAGE_SIZE,
             progress: bool = True, start_index: int = 0, max_attempts: int = MAX_ATTEMPTS) -> Summary:
    """Generate `count` scenes (intuitive physics: `count` plausible/implausible pairs) into `out`, with manifest.

    `workers` > 1 generates in that many processes; the files are identical to a single-process run.
    """
    out = Path(out)
    (out / split).mkdir(parents=True, exist_ok=True)
    summary = Summary(goal, difficulty, split, int(seed), int(count), out=str(out))
    tasks = [(goal, difficulty, split, int(seed), i, int(image_size), int(max_attempts))
             for i in range(start_index, start_index + int(count))]
    started = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), desc=f"{goal} {difficulty} {split}", unit="scene", file=sys.stderr,
                   disable=None)  # None: drawn only when stderr is a terminal (no \r noise in logs)
    try:
        if workers > 1 and len(tasks) > 1:
            import multiprocessing

            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=int(workers), mp_context=context, initializer=_worker_init) as pool:
                _collect(pool.map(_generate_task, tasks, chunksize=max(1, min(8, len(tasks) // (4 * workers)))),
                         out, split, summary, bar)
        else:
            _collect(map(_generate_task, tasks), out, split, summary, bar)
    finally:
        if bar is not None:
            bar.close()
    write_manifest(out / MANIFEST_NAME, summary.records)
    summary.seconds = time.perf_counter() - started
    return summary


def _collect(results: Iterable[SceneResult], out: Path, split: str, summary: Summary, bar) -> None:
    for result in results:
        summary.candidates += result.attempts
        summary.rejected.update(result.rejected)
        for sid, scene, record in result.scenes:
            path = out / split / f"{sid}.json"
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(scene_to_json(scene))
            summary.records.append(record)
            summary.written += 1
        if bar is not None:
            bar.update(1)


def _mean(values: list[float]) -> str:
    return f"{sum(values) / len(values):.2f}" if values else "-"


def format_summary(summaries: Summary | list[Summary]) -> str:
    """The end-of-run table: per run the scenes written, candidates drawn, rejections by reason, measured
    properties (mean distance and path length, visible at start, in a container) and speed."""
    summaries = summaries if isinstance(summaries, list) else [summaries]
    head = (f"{'goal':<18} {'difficulty':<10} {'split':<6} {'seed':>5} {'written':>7} {'cands':>6} {'rejected':>8} "
            f"{'dist':>6} {'path':>6} {'visible':>8} {'in_cont':>8} {'time_s':>7} {'scenes/s':>8}")
    lines = [head, "-" * len(head)]
    reasons: Counter = Counter()
    for s in summaries:
        recs = s.records
        dist = [r["distance"] for r in recs if isinstance(r.get("distance"), (int, float))]
        paths = [min(v for v in r["path_length"].values()) if isinstance(r.get("path_length"), dict) else None
                 for r in recs]
        paths = [p for p in paths if p is not None]
        vis = [r["visible_at_start"] for r in recs if "visible_at_start" in r]
        cont = [r["in_container"] for r in recs if "in_container" in r]
        rejected = sum(s.rejected.values())
        reasons.update(s.rejected)
        lines.append(
            f"{s.goal:<18} {s.difficulty:<10} {s.split:<6} {s.seed:>5} {s.written:>7} {s.candidates:>6} {rejected:>8} "
            f"{_mean(dist):>6} {_mean(paths):>6} "
            f"{(f'{sum(vis)}/{len(vis)}' if vis else '-'):>8} {(f'{sum(cont)}/{len(cont)}' if cont else '-'):>8} "
            f"{s.seconds:>7.1f} {s.scenes_per_second:>8.1f}")
    lines.append("")
    if reasons:
        lines.append("rejected candidates by reason:")
        lines += [f"  {reason:<24} {n:>6}" for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
    else:
        lines.append("rejected candidates by reason: none")
    return "\n".join(lines)


def print_summary(summaries: Summary | list[Summary], stream: TextIO | None = None) -> None:
    """Print `format_summary` to stdout (or `stream`)."""
    print(format_summary(summaries), file=stream or sys.stdout)


# -- the default training dataset ----------------------------------------------------------------------------
DEFAULT_DATASET_ROOT = "data/scenes/default"
#: (goal, difficulty, split, count) of the default dataset, all with seed 0.
DEFAULT_DATASET_SPEC: tuple[tuple[str, str, str, int], ...] = (
    ("retrieval", "easy", "train", 100), ("retrieval", "medium", "train", 100),
    ("retrieval", "easy", "val", 20), ("retrieval", "medium", "val", 20),
    ("retrieval", "easy", "test", 20), ("retrieval", "medium", "test", 20),
)
DEFAULT_DATASET_VERSION = 1
_STAMP = "DATASET.json"


def _stamp(image_size: int) -> dict[str, Any]:
    return {"version": DEFAULT_DATASET_VERSION, "seed": 0, "image_size": image_size,
            "spec": [list(s) for s in DEFAULT_DATASET_SPEC]}


def ensure_default_dataset(root: str | os.PathLike[str] = DEFAULT_DATASET_ROOT, workers: int = 1,
                           image_size: int = DEFAULT_IMAGE_SIZE, progress: bool = True,
                           quiet: bool = False) -> Path:
    """The default training dataset (200 train, 40 val, 40 test easy+medium retrieval scenes, seed 0) at `root`,
    generated first if it is missing or was made by another version of this spec. Returns `root`.

    Generation goes to a temporary sibling folder that is renamed into place, so concurrent callers (sampler
    processes) never see a half-written dataset; a caller that loses the race uses the winner's copy.
    """
    root = Path(root)
    stamp = root / _STAMP
    wanted = _stamp(image_size)
    if stamp.exists():
        try:
            if json.loads(stamp.read_text(encoding="utf-8")) == wanted:
                return root
        except (OSError, ValueError):
            pass
    tmp = root.with_name(f".{root.name}.tmp-{os.getpid()}")
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    summaries = [generate(goal, count, split, difficulty, 0, tmp, workers=workers, image_size=image_size,
                          progress=progress)
                 for goal, difficulty, split, count in DEFAULT_DATASET_SPEC]
    (tmp / _STAMP).write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
    if not quiet:
        print_summary(summaries, sys.stderr)
    import shutil

    if root.exists():
        try:
            if json.loads((root / _STAMP).read_text(encoding="utf-8")) == wanted:  # another process won
                shutil.rmtree(tmp)
                return root
        except (OSError, ValueError):
            pass
        shutil.rmtree(root)
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(tmp, root)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (root / _STAMP).exists():
            raise
    return root
