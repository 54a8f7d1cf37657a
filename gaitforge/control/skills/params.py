"""Gains and gait sets of the skills controller, per creature."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from gaitforge.control.skills.gaitgraph import Gait


@dataclass(frozen=True)
class SkillParams:
    """Everything a creature's skills controller is tuned by.

    Joint servos (desired-pose PD, run by MuJoCo's joint springs):
    kp_scale: stiffness as a multiple of the creature's joint stiffness,
    which its builder set from the static load, so gains scale with the
    creature's weight; kd_time [s]: damping = kd_time × stiffness (with,
    under the discrete integrator, the timestep × stiffness it adds);
    spine_scale: extra stiffness of the spine joints; stance_kp: the stance
    limbs' servos softened to this fraction (the body wrench carries them).

    Body wrench shared by the stance feet (``support``): kv [N s/m] the
    speed force's gain (Wang 2011 §3.3.2); kp_position [1/s²] a soft pull
    toward a reference that moves at the commanded velocity, lead [m] the
    largest error it keeps; kp_height [1/s²], kd_height [1/s] the mass
    centre's height servo; orient_freq [rad/s], orient_damping: the trunk
    orientation servo as a natural frequency and damping ratio; friction:
    the friction coefficient the feet's forces respect; regularize [m²]
    (``support.distribute``); max_push: the largest vertical force one
    foot is asked for, × body weight.

    Swing: swing_gravity (1: full gravity compensation of swing limbs);
    ipm_sagittal, ipm_coronal: weights of the inverted-pendulum correction
    of the foothold. torque_limit: the virtual-force torques are clipped to
    ± torque_limit × m g h_hip per DOF.

    Physics (``SkillController.prepare_model``): timestep [s], MuJoCo's
    integrator ("discrete" or "implicitfast") and constraint solver
    ("newton" or "pgs"); control_dt [s]: the control interval, a multiple
    of the timestep; contact_timeconst [s]: the ground contacts' solref
    time constant (0: the creature's own), stiff enough that feet sink at
    most half their radius (docs/physics.md).

    Joint limits (``sim.limits``; the runner clips the drives and reports
    the peaks): joint_torque, each joint's drive torque at most
    joint_torque × m g L with L the hip height at rest (the mean height of
    the four limbs' first joints, the h_hip above); joint_speed [rad/s], each
    joint's angular speed at most this (its drive along the motion fades to zero at it).
    """

    gaits: Mapping[str, Gait]
    kp_scale: float = 3.0
    kd_time: float = 0.04
    spine_scale: float = 4.0
    stance_kp: float = 0.05
    kv: float = 300.0
    kp_position: float = 10.0
    lead: float = 0.3
    kp_height: float = 100.0
    kd_height: float = 20.0
    orient_freq: float = 10.0
    orient_damping: float = 1.0
    friction: float = 0.7
    regularize: float = 0.02
    max_push: float = 1.2
    swing_gravity: float = 1.0
    ipm_sagittal: float = 1.0
    ipm_coronal: float = 1.0
    torque_limit: float = 1.0
    timestep: float = 0.01
    integrator: str = "discrete"
    solver: str = "newton"
    control_dt: float = 0.01
    contact_timeconst: float = 0.0
    joint_torque: float = 3.0
    joint_speed: float = 40.0
