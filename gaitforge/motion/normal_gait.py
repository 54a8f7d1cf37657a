"""Reference angle curves of normal human walking, as small data: the
sagittal hip, knee and ankle angles over one stride of the right leg, from
heel strike (0 %) to the next (100 %), in steps of 10 %.

Source: the shape and extremes of the mean curves of adults walking at
their natural cadence in Winter, D. A. (2009), *Biomechanics and Motor
Control of Human Movement*, 4th ed., Wiley, ch. 2 and appendix A (hip
flexion ~30° at heel strike to ~10° of extension at 50 %, range ~40°; knee
flexion ~15–20° in loading and ~60° in swing; ankle plantarflexion peak
~15–20° at toe-off, range ~25–30°), rounded to whole degrees at the 10 %
steps — coarse values for a stick figure and a range check, not a
digitised table. Pelvis rotation (~8–10°) and shoulder swing (~30°) are
the ranges quoted with those data (and in Perry & Burnfield 2010, *Gait
Analysis*, 2nd ed.).

Angles [°]: hip flexion positive (thigh forward of the trunk's vertical),
knee flexion positive, ankle dorsiflexion positive.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ANKLE", "HIP", "KNEE", "PHASE", "RANGES", "angles_at"]

PHASE = np.linspace(0.0, 1.0, 11)                                     # stride share, heel strike = 0
HIP = np.array([30, 22, 12, 4, -5, -10, -5, 12, 25, 32, 30], float)
KNEE = np.array([3, 17, 15, 7, 4, 10, 38, 60, 48, 18, 3], float)
ANKLE = np.array([0, -4, 5, 8, 10, 4, -16, -8, 2, 2, 0], float)
RANGES = {"hip": 40.0, "knee": 60.0, "ankle": 27.5, "pelvis rotation": 9.0, "shoulder": 30.0}  # [°] quoted


def angles_at(phase) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hip, knee and ankle angles [°] at stride phases ``phase`` (any shape,
    cycles; wrapped into [0, 1)), interpolated linearly."""
    p = np.mod(np.asarray(phase, float), 1.0)
    return tuple(np.interp(p, PHASE, a) for a in (HIP, KNEE, ANKLE))  # type: ignore[return-value]
