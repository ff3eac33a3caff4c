"""Learning curves: train each method with the real AllenAct CLI, evaluate its checkpoints on held-out scenes
(generated with a seed and split never trained on), and write success-vs-steps and success-vs-wall-time curves
(PNG) and a markdown table with random and expert references.

Reproduce (as recorded in benchmarks/RESULTS.md; each run keeps its results.json in --out):
    .venv/bin/python benchmarks/learning.py --methods dagger --steps 120000 --eval-every 30000 --difficulties easy medium
    .venv/bin/python benchmarks/learning.py --methods ppo --steps 1000000 --eval-every 125000 --held-out easy
    .venv/bin/python benchmarks/learning.py --combine runs/a/results.json runs/b/results.json   # one figure
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
# method -> (experiment file, goal of its scenes)
METHODS = {
    "dagger": ("experiments/mcs_retrieval_dagger.py", "retrieval"),
    "ppo": ("experiments/mcs_retrieval_ppo.py", "retrieval"),
    "traversal-ppo": ("experiments/mcs_traversal_ppo.py", "traversal"),
    "transferral-ppo": ("experiments/mcs_transferral_ppo.py", "transferral"),
    "transferral-dagger": ("experiments/mcs_transferral_dagger.py", "transferral"),
}
HELD_OUT_SEED = 12345
HELD_OUT_COUNT = 40


def held_out(out: Path, goal: str, difficulty: str) -> Path:
    """Held-out scenes of a goal and difficulty (test split, a seed no training set uses), generated once."""
    from mcs_plugin.scenes import generate

    root = out / "held_out" / f"{goal}_{difficulty}"
    if not (root / "test").is_dir():
        generate(goal, HELD_OUT_COUNT, "test", difficulty, HELD_OUT_SEED, root, progress=False)
    return root / "test"


def training_scenes(goal: str, difficulties: list[str], out: Path) -> str:
    """The training scenes of a goal: the default dataset for retrieval, else generated (seed 0, train split)."""
    from mcs_plugin.scenes import ensure_default_dataset, generate

    if goal == "retrieval":
        root = ensure_default_dataset(quiet=True, progress=False)
        return str(root / "train") if len(difficulties) > 1 else str(root / "train" / f"retrieval-{difficulties[0]}-*.json")
    root = out / "train" / goal
    for difficulty in difficulties:
        if not list((root / "train").glob(f"{goal}-{difficulty}-*.json")):
            generate(goal, 100, "train", difficulty, 0, root, progress=False)
    return str(root / "train")


def train(method: str, out: Path, steps: int, eval_every: int, scenes: str, processes: int,
          extra: dict | None = None) -> tuple[Path, float]:
    """Run AllenAct training; returns the run folder and the start time (checkpoint mtimes give wall times)."""
    experiment, _ = METHODS[method]
    run = out / method
    run.mkdir(parents=True, exist_ok=True)
    kwargs = {**(extra or {}), "train_steps": steps, "save_interval": eval_every, "scenes": scenes}
    command = [sys.executable, "-m", "allenact.main", experiment, "-o", str(run), "-s", "1",
               "--max_sampler_processes_per_worker", str(processes), "--config_kwargs", json.dumps(kwargs)]
    start = time.time()
    with open(run / "train.log", "w") as log:
        subprocess.run(command, cwd=ROOT, env=ENV, stdout=log, stderr=subprocess.STDOUT, check=False)
    return run, start


def curve(run: Path, start: float, sets: dict[str, Path], max_steps: int) -> list[dict]:
    """Success on each held-out set for every checkpoint of a run."""
    from mcs_plugin.evaluation import evaluate, load_policy, summarise

    points = []
    for checkpoint in sorted(run.glob("checkpoints/*/*/*.pt"), key=lambda p: p.stat().st_mtime):
        steps = int(checkpoint.stem.rsplit("steps_", 1)[-1])
        policy = load_policy(checkpoint)
        point = {"steps": steps, "wall_s": round(checkpoint.stat().st_mtime - start), "checkpoint": str(checkpoint)}
        for name, scenes in sets.items():
            summary = summarise(evaluate(policy, [str(scenes)], max_steps=max_steps, progress=False))
            point[name] = {"success": summary["success"], "spl": summary["spl"], "episodes": summary["episodes"]}
        points.append(point)
        print(json.dumps(point), flush=True)
    return points


def median_fps(log: Path) -> float | None:
    """The median of AllenAct's `approx_fps` readings in a training log (the first, start-up one left out)."""
    import re
    import statistics

    readings = [float(v) for v in re.findall(r"approx_fps ([0-9.]+)", log.read_text(errors="replace"))][1:]
    return statistics.median(readings) if readings else None


def random_reference(goal: str, scenes: Path, max_steps: int, seed: int = 0) -> float:
    """Success of uniformly random actions from the goal's task vocabulary."""
    from mcs_plugin.samplers import MCSSceneTaskSampler

    sampler = MCSSceneTaskSampler(str(scenes), [], max_steps=max_steps, mode="test",
                                  env_args={"config": {"metadata": "oracle", "width": 64, "height": 64,
                                                       "disable_object_masks": True}})
    rng, wins, episodes = random.Random(seed), 0.0, 0
    while (task := sampler.next_task()) is not None:
        while not task.is_done():
            task.step(rng.randrange(task.action_space.n))
        wins += task.metrics()["success"]
        episodes += 1
    sampler.close()
    return wins / max(episodes, 1)


def expert_reference(scenes: Path) -> float:
    """Success of the oracle expert."""
    from mcs_plugin.experts.cli import evaluate as evaluate_expert

    totals = evaluate_expert([str(scenes)], progress=False)["totals"]
    return sum(t["success"] for t in totals.values()) / max(sum(t["total"] for t in totals.values()), 1)


def plot(results: dict, path: Path) -> None:
    """Success vs training steps and vs wall time, one line per method and held-out set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for method, entry in results["methods"].items():
        for name in entry["sets"]:
            xs = [p["steps"] for p in entry["curve"]]
            ws = [p["wall_s"] / 60 for p in entry["curve"]]
            ys = [p[name]["success"] for p in entry["curve"]]
            axes[0].plot(xs, ys, marker="o", label=f"{method} / {name}")
            axes[1].plot(ws, ys, marker="o", label=f"{method} / {name}")
    axes[0].set_xlabel("training steps")
    axes[1].set_xlabel("wall time (min, 2-core CPU)")
    axes[0].set_ylabel("held-out success")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.set_ylim(-0.02, 1.02)
    axes[1].legend(fontsize=8, loc="lower right")
    fig.suptitle("mcs-plugin: success on held-out generated scenes")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def table(results: dict) -> str:
    """The markdown table of final and best success per method and held-out set, with references."""
    lines = ["| method | held-out set | random | expert | final success | best success (steps, wall) | steps | frames/s |",
             "|---|---|---:|---:|---:|---|---:|---:|"]
    for method, entry in results["methods"].items():
        for name in entry["sets"]:
            points = entry["curve"]
            if not points:
                lines.append(f"| {method} | {name} | | | no checkpoint (see {entry['run']}/train.log) | | | |")
                continue
            best = max(points, key=lambda p: p[name]["success"])
            ref = results["references"][name]
            lines.append(f"| {method} | {name} | {ref['random']:.2f} | {ref['expert']:.2f} | "
                         f"{points[-1][name]['success']:.2f} | {best[name]['success']:.2f} ({best['steps']:,}, "
                         f"{best['wall_s'] / 60:.0f} min) | {points[-1]['steps']:,} | {entry.get('fps_median') or 0:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--methods", nargs="+", default=["dagger", "ppo"], choices=sorted(METHODS))
    parser.add_argument("--steps", type=int, default=200_000, help="training steps per method")
    parser.add_argument("--eval-every", type=int, default=25_000, help="steps between evaluated checkpoints")
    parser.add_argument("--difficulties", nargs="+", default=["easy"], help="training difficulties")
    parser.add_argument("--held-out", nargs="+", default=["easy", "medium"], help="held-out difficulties")
    parser.add_argument("--max-steps", type=int, default=200, help="episode step limit at evaluation")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 2, help="sampler OS processes")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "learning")
    parser.add_argument("--config-kwargs", type=json.loads, default={},
                        help="more experiment settings as JSON, e.g. '{\"update_repeats\": 2}'")
    parser.add_argument("--combine", nargs="+", type=Path, metavar="RESULTS_JSON",
                        help="train nothing: draw and tabulate the results.json of earlier runs together")
    parser.add_argument("--plot", type=Path, default=ROOT / "benchmarks" / "learning_curves.png")
    args = parser.parse_args()
    if args.combine:
        results = {"methods": {}, "references": {}}
        for path in args.combine:
            part = json.loads(path.read_text())
            results["methods"].update(part["methods"])
            results["references"].update(part["references"])
        plot(results, args.plot)
        print(table(results))
        return
    args.out.mkdir(parents=True, exist_ok=True)
    results_file = args.out / "results.json"
    results = json.loads(results_file.read_text()) if results_file.is_file() else {"methods": {}, "references": {}}
    for method in args.methods:
        _, goal = METHODS[method]
        sets = {f"{goal}_{d}": held_out(args.out, goal, d) for d in args.held_out}
        for name, scenes in sets.items():
            if name not in results["references"]:
                results["references"][name] = {"random": random_reference(goal, scenes, args.max_steps),
                                               "expert": expert_reference(scenes)}
        scenes = training_scenes(goal, args.difficulties, args.out)
        run, start = train(method, args.out, args.steps, args.eval_every, scenes, args.processes,
                           args.config_kwargs)
        results["methods"][method] = {"run": str(run), "sets": list(sets), "train_scenes": scenes,
                                      "fps_median": median_fps(run / "train.log"),
                                      "curve": curve(run, start, sets, args.max_steps)}
        results_file.write_text(json.dumps(results, indent=2))
    plot(results, args.plot)
    print(table(results))


if __name__ == "__main__":
    main()
