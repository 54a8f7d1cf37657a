"""Where a swinging foot goes: inverted-pendulum foot placement (Wang 2011
§3.1.4, after Coros et al. 2011) and the swing-foot trajectories (§3.3.4).

The inverted pendulum over the stance foot keeps its energy: a body moving at
v [m/s] with its hip at height h [m] comes to rest over the foot when the
foot is d = v √(h/g + v²/(4g²)) ahead (from ½ m v² + m g h = m g h',
h'² = h² + d²). Stepping that far beyond the spot that suits the desired
speed slows the body by the excess; the rule is applied in the sagittal and
coronal planes.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.constants import GRAVITY as G

# Swing-foot height as a fraction of the lift height, at fractions of the
# swing (knots evaluated linearly, as the thesis does): a quick lift, a level
# carry, a gentle set-down that reaches the ground at the end of the swing.
HEIGHT_KNOTS = np.array([[0.0, 0.0], [0.2, 0.75], [0.5, 1.0], [0.8, 0.6], [1.0, 0.0]])


def ipm_offset(v: float, h: float) -> float:
    """Inverted-pendulum step [m] for a body at v [m/s] over a leg of height
    h [m] (signed like v)."""
    return v * math.sqrt(h / G + v * v / (4.0 * G * G))


def swing_height(progress: float, lift: float, knots: np.ndarray = HEIGHT_KNOTS) -> float:
    """Desired foot height [m] at ``progress`` ∈ [0, 1] of a swing lifting
    ``lift`` [m]."""
    return lift * float(np.interp(progress, knots[:, 0], knots[:, 1]))


def swing_blend(progress: float) -> float:
    """Horizontal progress of the swing foot from lift-off to target:
    smooth start and stop, and at the target by 85 % of the swing so the
    foot comes down where it was aimed."""
    u = min(1.0, progress / 0.85)
    return u * u * (3.0 - 2.0 * u)
