"""AllenAct experiment configurations for MCS tasks (run from the repository root)."""
