"""The small, separately testable pieces of Raibert & Hodgins' running control.

Notation follows RH91 (Raibert & Hodgins 1991, §4): x spring length, x_r its
rest length, ẋ forward speed, T_s stance duration, φ body pitch (or roll).
The laws (Eqs. 1-6) are the compiled functions of
:mod:`gaitforge.control.core.laws` that the controllers' ticks call,
applied here elementwise over numpy arrays as well.
"""
from __future__ import annotations

import functools

import numpy as np

from gaitforge.control.core import laws
from gaitforge.constants import GRAVITY as G

__all__ = ["G", "foot_placement", "hop_height", "joint_servo", "neutral_point", "paw_pad_force",
           "posture_torque", "required_friction", "spring_force"]


def _over_arrays(law):
    """``law`` (a compiled scalar function of ``core.laws``) applied
    elementwise over array arguments (broadcast); floats for scalars."""
    vectorized = np.vectorize(law, otypes=[float])

    @functools.wraps(getattr(law, "py_func", law))
    def apply(*args):
        if all(np.ndim(a) == 0 for a in args):
            return float(law(*(float(a) for a in args)))
        return vectorized(*args)
    apply.law = law  # the compiled function the controllers call
    return apply


# RH91 Eqs. 1-6: the controllers' own compiled laws (``core.laws``).
spring_force = _over_arrays(laws.spring_force)            # Eq. 1
hop_height = _over_arrays(laws.hop_height)                # Eq. 2
neutral_point = _over_arrays(laws.neutral_point)          # ẋ T_s / 2
foot_placement = _over_arrays(laws.foot_placement)        # Eq. 3
posture_torque = _over_arrays(laws.posture_torque)        # Eq. 4
joint_servo = _over_arrays(laws.joint_servo)              # Eq. 5
paw_pad_force = _over_arrays(laws.paw_pad_force)          # Eq. 6


def required_friction(tangential, normal, min_normal: float = 1.0):
    """Friction coefficient |f_t| / f_n that would have prevented slipping,
    where the normal force exceeds ``min_normal`` [N] (NaN elsewhere)."""
    tangential = np.asarray(tangential, float)
    normal = np.asarray(normal, float)
    ft = np.linalg.norm(tangential, axis=-1) if tangential.ndim > normal.ndim else np.abs(tangential)
    return np.where(normal > min_normal, ft / np.maximum(normal, min_normal), np.nan)
