"""Policies for MCS tasks: a small CNN over RGB/depth plus goal vectors, a GRU, and actor-critic heads."""

from __future__ import annotations

from typing import Optional, Sequence

import gym
import torch
import torch.nn as nn
from allenact.algorithms.onpolicy_sync.policy import (
    ActorCriticModel, DistributionType, LinearActorHead, LinearCriticHead, ObservationType,
)
from allenact.base_abstractions.misc import ActorCriticOutput, Memory
from allenact.embodiedai.models.basic_models import RNNStateEncoder, SimpleCNN
from gym.spaces import Dict as SpaceDict


class MCSActorCritic(ActorCriticModel[DistributionType]):
    """CNN(rgb, depth) ++ goal vectors (e.g. goal category, target colour) -> GRU -> policy and value.

    Observations are (step, sampler, H, W, C) images in [0, 1] and (step, sampler, D) vectors.
    """

    def __init__(self, action_space: gym.spaces.Discrete, observation_space: SpaceDict,
                 rgb_uuid: Optional[str] = "rgb", depth_uuid: Optional[str] = None,
                 goal_uuids: Sequence[str] = (), hidden_size: int = 128, embed_size: int = 128):
        super().__init__(action_space=action_space, observation_space=observation_space)
        self.goal_uuids = [u for u in goal_uuids if u in observation_space.spaces]
        # Kernels for the 32-128 px images of training (SimpleCNN's defaults need >= 36 px).
        self.cnn = SimpleCNN(observation_space, embed_size, rgb_uuid=rgb_uuid, depth_uuid=depth_uuid,
                             kernel_sizes=((5, 5), (3, 3), (3, 3)), layers_stride=((2, 2), (2, 2), (1, 1)))
        goal_size = sum(int(observation_space[u].shape[0]) for u in self.goal_uuids)
        self.goal_embed = nn.Linear(goal_size, 32) if goal_size else None
        visual_size = 0 if self.cnn.is_blind else embed_size * (int(rgb_uuid is not None) + int(depth_uuid is not None))
        self.state_encoder = RNNStateEncoder(visual_size + (32 if goal_size else 0), hidden_size)
        self.actor = LinearActorHead(hidden_size, action_space.n)
        self.critic = LinearCriticHead(hidden_size)
        self.hidden_size = hidden_size

    def _recurrent_memory_specification(self):
        return {
            "rnn": (
                (("layer", self.state_encoder.num_recurrent_layers), ("sampler", None), ("hidden", self.hidden_size)),
                torch.float32,
            )
        }

    def forward(self, observations: ObservationType, memory: Memory, prev_actions: torch.Tensor,
                masks: torch.FloatTensor) -> tuple[ActorCriticOutput[DistributionType], Optional[Memory]]:
        """One step (or a sequence of steps) of the policy."""
        features = []
        if not self.cnn.is_blind:
            features.append(self.cnn(observations))
        if self.goal_embed is not None:
            goal = torch.cat([observations[u].float() for u in self.goal_uuids], dim=-1)
            features.append(torch.relu(self.goal_embed(goal)))
        x, rnn_hidden = self.state_encoder(torch.cat(features, dim=-1), memory.tensor("rnn"), masks)
        output = ActorCriticOutput(distributions=self.actor(x), values=self.critic(x), extras={})
        return output, memory.set_tensor("rnn", rnn_hidden)
