"""Motion: the MotionClip every exporter and metric consumes, kinematic
synthesis from modes, modal IK, and gait metrics."""
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.modal_ik import modal_ik
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, ModalImpulse, ModalStart
from gaitforge.motion.synthesis import synthesize

__all__ = ["GaitRecipe", "GaitTerm", "ModalImpulse", "ModalStart", "MotionClip", "modal_ik", "synthesize"]
