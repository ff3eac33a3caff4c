"""The embedded MCS simulator: MuJoCo physics and ray casts, moderngl rendering, MCS StepMetadata out."""
