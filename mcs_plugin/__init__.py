"""mcs-plugin: AllenAct plugin for the DARPA Machine Common Sense tasks, with an embedded MCS simulator."""

__version__ = "0.1.0"
