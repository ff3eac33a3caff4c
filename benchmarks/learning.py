"""Learning result: success on held-out easy retrieval scenes after a fixed training budget, for PPO, DAgger and
offline behaviour cloning, against a uniformly random policy (and the expert, for reference).

Reproduce (as recorded in benchmarks/RESULTS.md; about an hour on 2 cores):
    .venv/bin/python benchmarks/learning.py --steps 15000 --out runs/learning
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
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "LP_NUM_THREADS": "1"}
EXPERIMENTS = {"ppo": "mcs_retrieval_ppo", "dagger": "mcs_retrieval_dagger", "bc": "mcs_retrieval_bc"}


def _allenact(experiment: str, out: Path, kwargs: dict, *extra: str) -> None:
    command = [sys.executable, "-m", "allenact.main", f"experiments/{experiment}.py", "-o", str(out), "-s", "1",
               "--config_kwargs", json.dumps(kwargs), *extra]
    log = out / f"{experiment}{'_eval' if extra else ''}.log"
    out.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as handle:
        subprocess.run(command, cwd=ROOT, env=ENV, stdout=handle, stderr=subprocess.STDOUT, check=False)


def _success(metrics_file: Path) -> tuple[float, int]:
    tasks = json.loads(metrics_file.read_text())[0]["tasks"]
    return sum(t["success"] for t in tasks) / len(tasks), len(tasks)


def train_and_evaluate(method: str, out: Path, common: dict, test_scenes: str, steps: int, dataset: str) -> dict:
    """Train one method for `steps` steps, evaluate its last checkpoint; success rate and times."""
    experiment = EXPERIMENTS[method]
    run = out / method
    kwargs = {**common, "train_steps": steps, "save_interval": steps}
    if method == "bc":
        kwargs["dataset"] = dataset
    start = time.perf_counter()
    _allenact(experiment, run, kwargs)
    train_s = time.perf_counter() - start
    checkpoints = sorted(run.glob("checkpoints/*/*/*.pt"), key=lambda p: p.stat().st_mtime)
    if not checkpoints:
        return {"method": method, "error": f"no checkpoint; see {run}/{experiment}.log"}
    _allenact(experiment, run, {**common, "test_scenes": test_scenes, **({"dataset": dataset} if method == "bc" else {})},
              "--eval", "-c", str(checkpoints[-1]))
    metrics = sorted(run.glob("metrics/*/*/metrics__test_*.json"), key=lambda p: p.stat().st_mtime)
    if not metrics:
        return {"method": method, "error": f"no test metrics; see {run}/{experiment}_eval.log"}
    success, episodes = _success(metrics[-1])
    return {"method": method, "success": success, "episodes": episodes, "train_steps": steps, "train_s": round(train_s)}


def random_policy(test_scenes: str, max_steps: int, resolution: int, seed: int = 0) -> dict:
    """Uniformly random actions from the retrieval task's vocabulary on every test scene."""
    from mcs_plugin.samplers import MCSSceneTaskSampler

    sampler = MCSSceneTaskSampler(test_scenes, [], max_steps=max_steps, mode="test", goal_categories=["retrieval"],
                                  env_args={"config": {"metadata": "oracle", "width": resolution, "height": resolution}})
    rng = random.Random(seed)
    successes, episodes = 0, 0
    while (task := sampler.next_task()) is not None:
        while not task.is_done():
            task.step(rng.randrange(task.action_space.n))
        successes += task.metrics()["success"]
        episodes += 1
    sampler.close()
    return {"method": "random", "success": successes / episodes, "episodes": episodes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=15000, help="training steps per method (the budget)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "learning")
    parser.add_argument("--max-steps", type=int, default=100, help="episode length limit at test time")
    parser.add_argument("--methods", nargs="+", default=["random", "expert", "bc", "dagger", "ppo"])
    args = parser.parse_args()
    from mcs_plugin.experts.cli import evaluate as evaluate_expert
    from mcs_plugin.imitation import collect_expert_trajectories
    from mcs_plugin.samplers import list_scenes
    from mcs_plugin.scenes import ensure_default_dataset, generate

    train_root = ensure_default_dataset(quiet=True, progress=False)
    test_root = args.out / "easy_test"
    if not (test_root / "test").is_dir():
        generate("retrieval", 40, "test", "easy", 12345, test_root, progress=False)
    test_scenes = str(test_root / "test")
    dataset = args.out / "expert_dataset"
    if "bc" in args.methods and not (dataset / "index.jsonl").is_file():
        print("collecting expert trajectories:", collect_expert_trajectories(list_scenes(train_root / "train"), dataset,
                                                                               progress=False), flush=True)
    common = {"scenes": str(train_root / "train"), "resolution": 64, "processes": 2, "max_steps": args.max_steps}
    results = []
    for method in args.methods:
        if method == "random":
            result = random_policy(test_scenes, args.max_steps, 64)
        elif method == "expert":
            counts = evaluate_expert([test_scenes], progress=False)["totals"]["retrieval"]
            result = {"method": "expert", "success": counts["success"] / counts["total"], "episodes": counts["total"]}
        else:
            result = train_and_evaluate(method, args.out, common, test_scenes, args.steps, str(dataset))
        results.append(result)
        print(json.dumps(result), flush=True)
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    print(f"\n| method | success on {results[0].get('episodes', '?')} held-out easy retrieval scenes | training |")
    print("|---|---:|---|")
    for r in results:
        budget = f"{r['train_steps']} steps, {r['train_s']} s" if "train_steps" in r else "-"
        print(f"| {r['method']} | {r.get('success', float('nan')):.2f} | {budget} |" if "success" in r
              else f"| {r['method']} | error: {r['error']} | |")


if __name__ == "__main__":
    main()
