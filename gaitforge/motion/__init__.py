"""Motion: the MotionClip every exporter and metric consumes, gaits as data
(:data:`GAITS`, one :class:`GaitSpec` each), kinematic synthesis from modes
(poses → ground → hold, :func:`synthesize`), modal IK, and gait metrics."""
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.gaits import GAITS, GaitSpec, HoldingStrategy
from gaitforge.motion.modal_ik import modal_ik
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, ModalImpulse, ModalStart
from gaitforge.motion.synthesis import synthesize

__all__ = ["GAITS", "GaitRecipe", "GaitSpec", "GaitTerm", "HoldingStrategy", "ModalImpulse", "ModalStart",
           "MotionClip", "modal_ik", "synthesize"]
