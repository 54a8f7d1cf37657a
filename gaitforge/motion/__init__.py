"""Motion: the MotionClip every exporter and metric consumes, kinematic
synthesis from modes, and gait metrics."""
from gaitforge.motion.clip import MotionClip

__all__ = ["MotionClip"]
