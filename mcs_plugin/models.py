"""Policies for MCS tasks: a compact CNN over RGB + depth, goal vectors, the previous action, a GRU, and
actor-critic heads."""

from __future__ import annotations

from typing import Optional, Sequence

import gym
import torch
import torch.nn as nn
from allenact.algorithms.onpolicy_sync.policy import (
    ActorCriticModel, DistributionType, LinearActorHead, LinearCriticHead, ObservationType,
)
from allenact.base_abstractions.misc import ActorCriticOutput, Memory
from allenact.embodiedai.models.basic_models import RNNStateEncoder
from gym.spaces import Dict as SpaceDict

GOAL_EMBED = 32
ACTION_EMBED = 16


class CompactCNN(nn.Module):
    """Nature-DQN-shaped encoder of (B, H, W, C) images in [0, 1] to (B, out_size) features; H, W >= 32.

    About 15x fewer multiply-adds than two stride-2 SimpleCNNs at 64x64, which is what makes CPU PPO updates
    cheap enough for hundreds of frames per second.
    """

    def __init__(self, channels: int, height: int, width: int, out_size: int = 256):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(channels, 32, 8, stride=4), nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(inplace=True),
            nn.Conv2d(64, 32, 3, stride=1, padding=1), nn.ReLU(inplace=True),
            nn.Flatten(),
        )
        with torch.no_grad():
            flat = self.convs(torch.zeros(1, channels, height, width)).shape[1]
        # normalised: unbounded conv features would saturate the GRU's gates and freeze the policy's output
        self.fc = nn.Sequential(nn.Linear(flat, out_size), nn.LayerNorm(out_size), nn.ReLU(inplace=True))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """(B, H, W, C) -> (B, out_size)."""
        return self.fc(self.convs(images.permute(0, 3, 1, 2)))


class MCSActorCritic(ActorCriticModel[DistributionType]):
    """CNN(rgb ++ depth) ++ goal vectors (goal category, target colour, target point...) ++ previous action ->
    GRU -> policy and value.

    Observations are (step, sampler, H, W, C) images in [0, 1] and (step, sampler, D) vectors.
    """

    def __init__(self, action_space: gym.spaces.Discrete, observation_space: SpaceDict,
                 rgb_uuid: Optional[str] = "rgb", depth_uuid: Optional[str] = None,
                 goal_uuids: Sequence[str] = (), hidden_size: int = 128, embed_size: int = 256):
        super().__init__(action_space=action_space, observation_space=observation_space)
        self.image_uuids = [u for u in (rgb_uuid, depth_uuid) if u is not None and u in observation_space.spaces]
        self.goal_uuids = [u for u in goal_uuids if u in observation_space.spaces]
        features = 0
        self.cnn: Optional[CompactCNN] = None
        if self.image_uuids:
            height, width = observation_space[self.image_uuids[0]].shape[:2]
            channels = sum(int(observation_space[u].shape[2]) for u in self.image_uuids)
            self.cnn = CompactCNN(channels, height, width, embed_size)
            features += embed_size
        goal_size = sum(int(observation_space[u].shape[0]) for u in self.goal_uuids)
        self.goal_embed = nn.Sequential(nn.Linear(goal_size, GOAL_EMBED), nn.ReLU(inplace=True)) if goal_size else None
        features += GOAL_EMBED if goal_size else 0
        self.action_embed = nn.Embedding(action_space.n + 1, ACTION_EMBED)  # index 0: no previous action
        features += ACTION_EMBED
        self.state_encoder = RNNStateEncoder(features, hidden_size)
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
        if self.cnn is not None:
            images = torch.cat([observations[u].float() for u in self.image_uuids], dim=-1)
            steps, samplers = images.shape[:2]
            features.append(self.cnn(images.flatten(0, 1)).view(steps, samplers, -1))
        if self.goal_embed is not None:
            features.append(self.goal_embed(torch.cat([observations[u].float() for u in self.goal_uuids], dim=-1)))
        # a new episode (mask 0) has no previous action
        features.append(self.action_embed(((prev_actions.long() + 1) * masks.long().squeeze(-1))))
        x, rnn_hidden = self.state_encoder(torch.cat(features, dim=-1), memory.tensor("rnn"), masks)
        output = ActorCriticOutput(distributions=self.actor(x), values=self.critic(x), extras={})
        return output, memory.set_tensor("rnn", rnn_hidden)
