"""CPU time of one learning pass over a rollout (forward and backward of the retrieval model) as the rollout is cut
into more or fewer minibatches: whether the GRU's per-minibatch sequence cost makes small minibatches dearer.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/update_cpu.py [--samplers 16] [--steps 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time

import torch
from allenact.base_abstractions.misc import Memory
from allenact.base_abstractions.sensor import ExpertActionSensor, SensorSuite

from experiments.mcs_retrieval_dagger import MCSRetrievalDAggerExperimentConfig

EPISODE_STEPS = 22  # a DAgger episode's mean length on the easy scenes: where the masks cut the GRU's sequences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samplers", type=int, default=16)
    parser.add_argument("--steps", type=int, default=64, help="rollout steps")
    parser.add_argument("--rounds", type=int, default=3, help="timed passes per minibatch count")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = MCSRetrievalDAggerExperimentConfig()
    model = config.create_model()
    spaces = SensorSuite([s for s in config.sensors() if not isinstance(s, ExpertActionSensor)]).observation_spaces
    steps, samplers = args.steps, args.samplers
    observations = {k: torch.rand(steps, samplers, *space.shape) for k, space in spaces.spaces.items()}
    masks = (torch.rand(steps, samplers, 1) >= 1.0 / EPISODE_STEPS).float()
    actions = torch.randint(0, config.action_count(), (steps, samplers))
    hidden = model._recurrent_memory_specification()["rnn"][0][2][1]

    def one_pass(minibatches: int) -> None:
        for index in torch.arange(samplers).chunk(minibatches):
            memory = Memory({"rnn": (torch.zeros(1, len(index), hidden), 1)})
            out, _ = model({k: v[:, index] for k, v in observations.items()}, memory, actions[:, index], masks[:, index])
            loss = -out.distributions.log_prob(actions[:, index]).mean() + out.values.pow(2).mean()
            model.zero_grad()
            loss.backward()

    for minibatches in (1, 2, 4, 8):
        one_pass(minibatches)
        start = time.process_time()
        for _ in range(args.rounds):
            one_pass(minibatches)
        seconds = (time.process_time() - start) / args.rounds
        print(f"{minibatches} minibatches of {samplers // minibatches} samplers x {steps} steps: "
              f"{seconds:.3f} s CPU per pass over the rollout ({1000 * seconds / (steps * samplers):.2f} ms per frame)")


if __name__ == "__main__":
    main()
