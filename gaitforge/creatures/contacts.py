"""The ground contacts of a compiled creature, whichever way it collides.

A creature's contact shapes meet the ground either by collision filtering
(``contype``/``conaffinity``: MuJoCo mixes the two geoms' parameters) or by
explicit geom pairs (``CreatureSpec.contact_pairs``: the pair carries them).
Code that changes contact parameters on a model copy goes through here so
that it acts on both.

Pair friction has five entries (two tangential, torsional, two rolling [m]);
a geom's has three (tangential, torsional, rolling), mixed by maximum.
"""
from __future__ import annotations

from collections.abc import Iterable

import mujoco
import numpy as np

# A pair's margin [m] below which no penetration ever reaches: MuJoCo keeps a
# contact only when the distance is under the margin, so the pair is off.
_OFF_MARGIN = -1.0e6


def contact_geoms(model: mujoco.MjModel) -> list[int]:
    """Creature geoms (not on the world body) that can touch the ground, by
    filtering or by a pair, in geom order."""
    paired = set(model.pair_geom1.tolist()) | set(model.pair_geom2.tolist())
    return [g for g in range(model.ngeom) if model.geom_bodyid[g] != 0
            and (model.geom_contype[g] or model.geom_conaffinity[g] or g in paired)]


def pairs_of(model: mujoco.MjModel, geoms: Iterable[int]) -> list[int]:
    """Ids of the explicit pairs that involve any of ``geoms``."""
    wanted = set(int(g) for g in geoms)
    return [p for p in range(model.npair)
            if int(model.pair_geom1[p]) in wanted or int(model.pair_geom2[p]) in wanted]


def set_torsional_friction(model: mujoco.MjModel, geoms: Iterable[int], torsion: float) -> None:
    """Give ``geoms``' contacts a torsional friction length ``torsion`` [m]
    (condim 4), on the geoms and on their pairs."""
    geoms = list(geoms)
    for g in geoms:
        model.geom_condim[g] = 4
        model.geom_friction[g, 1] = torsion
    for p in pairs_of(model, geoms):
        model.pair_dim[p] = 4
        model.pair_friction[p, 2] = torsion


def set_time_constant(model: mujoco.MjModel, timeconst: float) -> None:
    """Contact stiffness of every geom and pair as a solref time constant [s]."""
    model.geom_solref[:, 0] = timeconst
    model.pair_solref[:, 0] = timeconst


def scale_contact_lengths(model: mujoco.MjModel, length: float, time: float) -> None:
    """Scale in place what carries units in contact parameters: solref time
    constants (positive ones) by ``time``; the solimp transition width,
    margins, gaps and torsional/rolling friction lengths by ``length``."""
    for solref in (model.geom_solref, model.pair_solref):
        solref[:, 0] = np.where(solref[:, 0] > 0.0, solref[:, 0] * time, solref[:, 0])
    for prefix, friction_lengths in (("geom", slice(1, None)), ("pair", slice(2, None))):
        getattr(model, f"{prefix}_solimp")[:, 2] *= length
        getattr(model, f"{prefix}_margin")[:] *= length
        getattr(model, f"{prefix}_gap")[:] *= length
        getattr(model, f"{prefix}_friction")[:, friction_lengths] *= length


def set_margin(model: mujoco.MjModel, margin: float) -> None:
    """Contact margin [m] of every geom and pair (near misses become contacts)."""
    model.geom_margin[:] = margin
    model.pair_margin[:] = margin


def disable_contacts(model: mujoco.MjModel, geoms: Iterable[int]) -> None:
    """Switch off every ground contact of ``geoms`` on this model copy."""
    geoms = list(geoms)
    for g in geoms:
        model.geom_contype[g] = 0
        model.geom_conaffinity[g] = 0
    for p in pairs_of(model, geoms):
        model.pair_margin[p] = _OFF_MARGIN
