"""Around AllenAct training: a progress line with total and ETA, and learning-curve plots of a run."""
