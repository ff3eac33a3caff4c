"""mcs-plugin: AllenAct plugin for the DARPA Machine Common Sense tasks, with an embedded MCS simulator."""

__version__ = "0.1.0"

# Lazy exports: importing the package stays cheap (a host child on another Python imports it too).
_LAZY = {
    "MCSEnvironment": "mcs_plugin.environment",
    "SimulatorError": "mcs_plugin.host.errors",
    "SimulatorCrashed": "mcs_plugin.host.errors",
    "SimulatorTimeout": "mcs_plugin.host.errors",
    "SimulatorGaveUp": "mcs_plugin.host.errors",
    "SimulatorUnavailable": "mcs_plugin.host.errors",
}


def __getattr__(name):
    """Import the lazily exported names on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcs_plugin' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_LAZY))
