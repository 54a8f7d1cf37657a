"""The desired pose (Wang 2011 §3.1.2, §3.1.4): leg frames, spine and limbs.

The anchor leg frame (the one the spine hangs from) is asked to be at its
height with the commanded heading and the trunk pitch the two frame heights
imply; the other frame's place follows through the spine, whose joints share
the rotation between the frames evenly, so the two targets agree. A stance
limb's joints are solved for its foothold as seen from the desired frame, so
its servos push the frame toward that pose; a swinging limb's joints are
solved from the frame where it is, so the foot follows its world trajectory.
Distal links are held level with the heading.
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.control.skills import limbs as L
from gaitforge.control.skills import quat as Q


class PoseSolver:
    """Writes joint-spring references (``model.qpos_spring``) for a pose."""

    def __init__(self, model: mujoco.MjModel, limbs: list[L.Limb], spine: list[int], front_first: bool,
                 span: float):
        self.model, self.limbs, self.spine, self.front_first, self.span = model, limbs, spine, front_first, span
        self.spine_qpos = [int(model.jnt_qposadr[model.body_jntadr[b]]) for b in spine]

    def frame_targets(self, heading: float, pitch: float, twist: float, heights: tuple[float, float],
                      anchor: int, anchor_xy: np.ndarray, anchor_rest_z: float) -> tuple[list, list]:
        """Desired positions and orientations of (front, rear) leg frames;
        writes the spine references. pitch [rad, nose up], twist [rad, roll
        of the front frame, left side up], heights [m] offsets from rest."""
        pitch = pitch + math.atan2(heights[0] - heights[1], self.span)
        q = [Q.euler_zyx(heading, -pitch, twist), Q.euler_zyx(heading, -pitch, 0.0)]
        a, b = (q[0], q[1]) if self.front_first else (q[1], q[0])
        turn = Q.from_rotvec(Q.to_rotvec(Q.mul(Q.conj(a), b)) / max(1, len(self.spine)))
        spring = self.model.qpos_spring
        for adr in self.spine_qpos:
            spring[adr:adr + 4] = turn
        pos = np.array([anchor_xy[0], anchor_xy[1], anchor_rest_z + heights[anchor]])
        other, rot = pos.copy(), q[anchor]
        for body in self.spine:
            other = other + Q.rotate(rot, self.model.body_pos[body])
            rot = Q.mul(rot, turn)
        out = [pos, pos]
        out[1 - anchor] = other
        return out, q

    def limb(self, limb: L.Limb, foot: np.ndarray, frame_pos: np.ndarray, frame_q: np.ndarray,
             level: np.ndarray, previous_knee: float) -> float:
        """Solve ``limb`` for its contact site at ``foot`` (3,) [m, world]
        with its frame at ``frame_pos``/``frame_q`` and the distal links at
        world orientation ``level``; writes the references, returns the
        knee angle [rad]."""
        spring = self.model.qpos_spring
        end = foot - Q.rotate(level, limb.end_to_site)
        ball, knee = L.solve(limb, Q.rotate(Q.conj(frame_q), end - frame_pos), previous_knee)
        spring[limb.qpos[0]:limb.qpos[0] + 4] = ball
        bend = Q.from_axis_angle(limb.knee_axis, knee)
        _set(spring, limb, 1, knee, bend)
        parent = Q.mul(Q.mul(frame_q, ball), bend)
        for k in range(2, len(limb.bodies)):
            axis = limb.axes[k - 1]
            angle = L.hold_orientation(parent, axis, level)
            bend = Q.from_axis_angle(axis, angle)
            _set(spring, limb, k, angle, bend)
            parent = Q.mul(parent, bend)
        return knee


def flexion(qpos: np.ndarray, limb: L.Limb) -> float:
    """The knee's flexion angle [rad] in ``qpos`` (a ball's turn about its axis)."""
    if not limb.balls[0]:
        return float(qpos[limb.qpos[1]])
    return float(Q.to_rotvec(qpos[limb.qpos[1]:limb.qpos[1] + 4]) @ limb.knee_axis)


def _set(spring: np.ndarray, limb: L.Limb, k: int, angle: float, quat: np.ndarray) -> None:
    """Write link k's joint reference: a hinge angle, or a ball's quaternion."""
    if limb.balls[k - 1]:
        spring[limb.qpos[k]:limb.qpos[k] + 4] = quat
    else:
        spring[limb.qpos[k]] = angle
