import os

# Offscreen rendering without a display: must be set before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")
