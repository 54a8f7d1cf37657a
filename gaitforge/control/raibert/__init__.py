"""Dynamic legged locomotion after Raibert & Hodgins 1991: the control
toolbox (hopping, speed and posture control, joint servos, the running state
machine), creature controllers, foot models and dynamic scaling."""
from gaitforge.control.raibert.fsm import Phase, PhaseMachine, StanceTimer
from gaitforge.control.raibert.toolbox import (
    foot_placement,
    hop_height,
    joint_servo,
    neutral_point,
    paw_pad_force,
    posture_torque,
    spring_force,
)

__all__ = ["Phase", "PhaseMachine", "StanceTimer", "foot_placement", "hop_height", "joint_servo",
           "neutral_point", "paw_pad_force", "posture_torque", "spring_force"]
