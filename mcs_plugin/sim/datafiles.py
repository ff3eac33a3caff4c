"""The package's data files (object catalog, material colours) in mcs_plugin/sim/data."""

from __future__ import annotations

from importlib import resources


def data_text(filename: str) -> str:
    """Text of a file in mcs_plugin/sim/data (a UTF-8 BOM is dropped)."""
    return resources.files("mcs_plugin.sim").joinpath("data", filename).read_text(encoding="utf-8-sig")
