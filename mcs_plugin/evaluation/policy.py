"""A trained AllenAct policy with the experiment that made it: sensors, task settings and the model's weights."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import torch
from allenact.base_abstractions.experiment_config import ExperimentConfig
from allenact.base_abstractions.misc import Memory
from allenact.base_abstractions.sensor import ExpertActionSensor
from allenact.utils.tensor_utils import batch_observations

REPO_ROOT = Path(__file__).resolve().parents[2]  # holds the `experiments` package in a source checkout


def _configs_in(module: Any) -> list[type[ExperimentConfig]]:
    return [c for _, c in inspect.getmembers(module, inspect.isclass)
            if issubclass(c, ExperimentConfig) and not inspect.isabstract(c) and c.__module__ == module.__name__]


def experiment_from_file(path: str | Path) -> type[ExperimentConfig]:
    """The experiment config class defined in a Python file (ValueError when there is not exactly one)."""
    path = Path(path).resolve()
    for root in (str(Path.cwd()), str(REPO_ROOT), str(path.parent.parent)):
        if root not in sys.path:
            sys.path.insert(0, root)
    if path.parent.name == "experiments" and (path.parent / "__init__.py").is_file():
        module = importlib.import_module(f"experiments.{path.stem}")
    else:
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    configs = _configs_in(module)
    if len(configs) != 1:
        raise ValueError(f"{path}: expected one experiment config class, found {[c.__name__ for c in configs]}")
    return configs[0]


def experiment_of_checkpoint(checkpoint: str | Path) -> tuple[type[ExperimentConfig], dict]:
    """The experiment class and config kwargs of a checkpoint in an AllenAct run folder.

    AllenAct writes `OUT/checkpoints/<tag>/<start>/*.pt` and copies the experiment's files and its
    `config_kwargs.json` to `OUT/used_configs/<tag>/<start>/`; the class is the one whose `tag()` matches, imported
    from this checkout's `experiments` package (the used_configs copy names the file)."""
    checkpoint = Path(checkpoint).resolve()
    start, tag, out = checkpoint.parent.name, checkpoint.parent.parent.name, checkpoint.parents[3]
    used = out / "used_configs" / tag / start
    kwargs_file = used / "config_kwargs.json"
    kwargs = json.loads(kwargs_file.read_text()) if kwargs_file.is_file() else {}
    candidates = sorted(used.glob("*.py")) if used.is_dir() else []
    candidates += sorted((REPO_ROOT / "experiments").glob("*.py"))
    for file in candidates:
        if f'"{tag}"' not in file.read_text(encoding="utf-8", errors="replace"):
            continue
        local = REPO_ROOT / "experiments" / file.name
        config_class = experiment_from_file(local if local.is_file() else file)
        if config_class.tag() == tag:
            return config_class, kwargs
    raise FileNotFoundError(f"no experiment with tag {tag!r} for {checkpoint} (looked in {used} and "
                            f"{REPO_ROOT / 'experiments'}); pass --experiment FILE")


@dataclass
class TrainedPolicy:
    """A model with its weights and the experiment config that defines its sensors and task."""

    config: ExperimentConfig
    model: torch.nn.Module
    checkpoint: Path

    def sensors(self) -> list:
        """The experiment's sensors the policy reads (the expert's action left out)."""
        return [s for s in self.config.sensors() if not isinstance(s, ExpertActionSensor)]

    def start(self) -> "PolicyState":
        """Fresh recurrent state for a new episode."""
        return PolicyState(self)


class PolicyState:
    """One episode's recurrent memory and previous action; `act` picks the next action."""

    def __init__(self, policy: TrainedPolicy):
        self.policy = policy
        spec = policy.model.recurrent_memory_specification
        self.memory = Memory({name: (torch.zeros(*[1 if size is None else size for _, size in dims], dtype=dtype),
                                     [d for d, _ in dims].index("sampler"))
                              for name, (dims, dtype) in spec.items()}) if spec else Memory()
        self.prev_action = torch.zeros(1, 1, dtype=torch.long)
        self.mask = torch.zeros(1, 1, 1)

    @torch.no_grad()
    def act(self, observations: dict, greedy: bool = False, generator: Optional[torch.Generator] = None) -> int:
        """The action for one observation dict (sampled from the policy, or its most likely action)."""
        model = self.policy.model
        batch = batch_observations([{k: observations[k] for k in model.observation_space.spaces}])
        batch = {k: v.unsqueeze(0) for k, v in batch.items()}  # (step, sampler, ...)
        output, self.memory = model(batch, self.memory, self.prev_action, self.mask)
        probs = output.distributions.probs.view(-1)
        action = int(probs.argmax()) if greedy else int(torch.multinomial(probs, 1, generator=generator))
        self.prev_action = torch.tensor([[action]])
        self.mask = torch.ones(1, 1, 1)
        return action


class RandomPolicy(TrainedPolicy):
    """Uniformly random actions from the experiment's action space: the reference a trained policy must beat."""

    def start(self) -> "RandomState":
        """A state that ignores observations."""
        return RandomState(self.config.action_count())


class RandomState:
    """Draws each action uniformly from `count` actions with the evaluation's generator."""

    def __init__(self, count: int):
        self.count = count

    def act(self, observations: dict, greedy: bool = False, generator: Optional[torch.Generator] = None) -> int:
        """A uniformly random action index (`greedy` has no meaning here)."""
        return int(torch.randint(self.count, (1,), generator=generator))


def random_policy(experiment: str | Path, config_kwargs: Optional[dict] = None) -> RandomPolicy:
    """A random policy over the action space and sensors of an experiment file."""
    config = experiment_from_file(experiment)(**(config_kwargs or {}))
    return RandomPolicy(config, torch.nn.Identity(), Path("random"))


def load_policy(checkpoint: str | Path, experiment: Optional[str | Path] = None,
                config_kwargs: Optional[dict] = None) -> TrainedPolicy:
    """The policy of an AllenAct checkpoint; its experiment from `experiment` (a file) or from the run folder."""
    checkpoint = Path(checkpoint)
    if not checkpoint.is_file():
        raise FileNotFoundError(f"{checkpoint}: no such checkpoint")
    if experiment is not None:
        config_class, kwargs = experiment_from_file(experiment), {}
    else:
        config_class, kwargs = experiment_of_checkpoint(checkpoint)
    config = config_class(**{**kwargs, **(config_kwargs or {})})
    model = config.create_model()
    state = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model.load_state_dict(state["model_state_dict"] if "model_state_dict" in state else state)
    model.eval()
    return TrainedPolicy(config, model, checkpoint)
