"""Frames per second of one sampler process of the default training job, without the learner: where its time goes.

The process holds the first `--samplers` of the job's 16 task samplers (each with its share of the easy training
scenes) and steps them in turn, as AllenAct's sampler processes do. `ppo` acts at random (episodes run to the step
limit); `dagger` computes the expert's label at every step and takes it (teacher forcing: short, successful
episodes, so episode starts weigh more). Both read the sensors of the retrieval experiments at their default
resolution.

Reproduce (as recorded in benchmarks/RESULTS.md):
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/sampler_fps.py --mode ppo dagger --frames 3000
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/sampler_fps.py --mode dagger --frames 3000 --profile
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/sampler_fps.py --mode dagger ppo --warmup 6000 --frames 6000
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def run(mode: str, frames: int, seed: int, samplers: int, warmup: int = 0) -> dict:
    """Step `samplers` task samplers in turn for `warmup` frames, then time `frames` frames in all; returns frames/s,
    episodes and wall and CPU ms per frame (CPU time is steadier on a shared machine)."""
    from experiments.mcs_retrieval_dagger import MCSRetrievalDAggerExperimentConfig
    from mcs_plugin.scenes import ensure_default_dataset

    root = ensure_default_dataset(quiet=True, progress=False)
    config = MCSRetrievalDAggerExperimentConfig(scenes=str(root / "train" / "retrieval-easy-*.json"))
    seeds = [seed + i for i in range(config.processes)]
    pool = []
    for index in range(samplers):
        args = config.train_task_sampler_args(process_ind=index, total_processes=config.processes, seeds=seeds)
        if mode == "ppo":
            args["sensors"] = [s for s in args["sensors"] if s.uuid != "expert_action"]
        pool.append(config.make_sampler_fn(**args))
    rng = random.Random(seed)
    episodes, done_frames = 0, -warmup
    tasks = [sampler.next_task() for sampler in pool]
    observations = [task.get_observations() for task in tasks]
    start, cpu_start = (time.perf_counter(), time.process_time()) if warmup <= 0 else (None, None)
    while done_frames < frames:
        for i, task in enumerate(tasks):
            if mode == "dagger":
                action, ok = observations[i]["expert_action"]
                action = int(action) if ok else rng.randrange(task.action_space.n)
            else:
                action = rng.randrange(task.action_space.n)
            result = task.step(action)
            observations[i] = result.observation
            done_frames += 1
            if result.done:
                episodes += 1
                tasks[i] = pool[i].next_task()
                observations[i] = tasks[i].get_observations()
            if done_frames == 0:  # the warm-up is over: every scene of the share started and planned once
                episodes, start, cpu_start = 0, time.perf_counter(), time.process_time()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    for sampler in pool:
        sampler.close()
    return {"mode": mode, "frames": done_frames, "episodes": episodes, "fps": done_frames / seconds,
            "ms_per_frame": 1000 * seconds / done_frames, "cpu_ms_per_frame": 1000 * cpu / done_frames}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", nargs="+", default=["ppo", "dagger"], choices=["ppo", "dagger"])
    parser.add_argument("--frames", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=0, help="frames stepped before the timing starts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--samplers", type=int, default=8, help="task samplers in the process (the job has 16)")
    parser.add_argument("--profile", action="store_true", help="print the top functions (cProfile)")
    parser.add_argument("--sort", default="cumulative", help="profile order: cumulative or tottime")
    args = parser.parse_args()
    for mode in args.mode:
        if args.profile:
            profiler = cProfile.Profile()
            result = profiler.runcall(run, mode, args.frames, args.seed, args.samplers, args.warmup)
            pstats.Stats(profiler).sort_stats(args.sort).print_stats(45)
        else:
            result = run(mode, args.frames, args.seed, args.samplers, args.warmup)
        print(f"{result['mode']:>6}: {result['fps']:7.1f} frames/s  {result['ms_per_frame']:6.2f} ms/frame ({result['cpu_ms_per_frame']:.2f} CPU)  "
              f"{result['episodes']} episodes in {result['frames']} frames")


if __name__ == "__main__":
    main()
