"""Task samplers over directories, globs and manifests of MCS scene JSON."""

from mcs_plugin.samplers.sampler import MCSSceneTaskSampler, default_env_factory
from mcs_plugin.samplers.scenes import list_scenes, partition

__all__ = ["MCSSceneTaskSampler", "default_env_factory", "list_scenes", "partition"]
