"""Cost of the expert's labels under DAgger: the retrieval expert labels every step of a sampler's share of the
training scenes of a difficulty while a learner (here: random actions) acts with probability `--learner`.

Reproduce (as recorded in benchmarks/RESULTS.md):
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/expert_labels.py --learner 0.3
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/expert_labels.py --learner 0.5 --difficulty medium
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learner", type=float, default=0.3, help="probability that the learner's action is taken")
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--difficulty", default="easy", choices=("easy", "medium"))
    parser.add_argument("--share", type=int, default=16, help="the scenes are split into this many shares")
    args = parser.parse_args()
    from mcs_plugin.samplers import MCSSceneTaskSampler
    from mcs_plugin.scenes import ensure_default_dataset

    root = ensure_default_dataset(quiet=True, progress=False)
    sampler = MCSSceneTaskSampler(str(root / "train" / f"retrieval-{args.difficulty}-*.json"), [], max_steps=200,
                                  total_processes=args.share, seed=0,
                                  env_args={"config": {"metadata": "oracle", "width": 64, "height": 64,
                                                       "disable_object_masks": True}})
    rng, times, successes = random.Random(0), [], 0
    for _ in range(args.episodes):
        task = sampler.next_task()
        while not task.is_done():
            start = time.perf_counter()
            action, labelled = task.query_expert()
            times.append(time.perf_counter() - start)
            if not labelled or rng.random() < args.learner:
                action = rng.randrange(task.action_space.n)
            task.step(action)
        successes += task.metrics()["success"]
    sampler.close()
    print(f"{args.episodes} {args.difficulty} episodes over {len(sampler.scenes)} scenes, learner {args.learner:.0%}: "
          f"{len(times)} labels, mean {1e3 * statistics.mean(times):.2f} ms, median "
          f"{1e3 * statistics.median(times):.2f} ms, max {1e3 * max(times):.0f} ms, total {sum(times):.1f} s, "
          f"success {successes / args.episodes:.2f}")


if __name__ == "__main__":
    main()
