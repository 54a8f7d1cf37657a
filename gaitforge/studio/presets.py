"""Rest-pose presets: the creature as built (stand) or lowered on its legs
(crouch, deep crouch), made from its own modes, so any creature with
contact points has them.

A preset is data, :data:`PRESETS`: how far the trunk moves down (a share
of its height above the contact points in the rest pose). The pose
is the smallest combination of the creature's elastic modes (modal
coordinates x, mass-normalized; only its symmetric modes where the creature
is a mirror image of itself, so the pose is one too) that lowers the trunk
(its first body) that far relative to every contact point, keeping each contact point where it is
horizontally relative to it, the trunk level and the bodies on no limb
(spine, neck, head, tail) or on a limb that does not stand (a biped's arms)
as they were about the trunk: Gauss-Newton steps of damped least squares,
Δx = Jᵀ(JJᵀ + λ²I)⁻¹ r, on the residual r of those vectors (J by finite
differences; a step is halved until it lowers the residual), then grounded (the lowest contact point on the ground). The
studio then uses the pose as the creature's rest pose: its springs' rest
angles, and the modes computed again about it.
"""
from __future__ import annotations

import numpy as np

from gaitforge.errors import GaitforgeError

PRESETS: dict[str, float] = {"stand": 0.0, "crouch": 0.12, "deep crouch": 0.25}  # share of the trunk's height dropped
ITERATIONS = 20
HALVINGS = 10       # step halvings tried before the fit stops where it is
DAMPING = 1e-3      # λ [m] of the damped least squares
STEP = 1e-4         # modal step of the finite differences
TOLERANCE = 1e-4    # [m] residual at which the pose is taken
TILT_WEIGHT = 0.5   # [m/rad] a trunk tilt counts as this much misplacement
MAX_STEP = 0.5      # largest change of the modal coordinates per step (their norm)


def names() -> list[str]:
    """The presets, in :data:`PRESETS` order."""
    return list(PRESETS)


def _poses(character, basis, x: np.ndarray) -> np.ndarray:
    """Poses (T, nq) with modal coordinates x (T, k) about the rest pose, joint limits softened."""
    from gaitforge.motion.poses import layout

    lay = layout(character)
    q = lay.integrate(basis.rest_qpos, np.atleast_2d(x) @ basis.shapes.T)
    return lay.soft_limits(q, np.radians(10), 0.01)


def _vectors(character, basis, x: np.ndarray, sites: np.ndarray) -> np.ndarray:
    """Per pose of modal coordinates x (T, k): the trunk (first body) minus each
    contact point (F·3) [m], the trunk's orientation (3) as a rotation
    vector × :data:`TILT_WEIGHT` [m], and every body on no limb (spine,
    neck, head, tail) or on a limb without contact points (a biped's arms)
    relative to the trunk (B·3) [m]."""
    m = character.model
    q = _poses(character, basis, x)
    names = [m.body(int(b)).name for b in m.site_bodyid[sites]]
    feet = character.world_points(q, names, m.site_pos[sites])
    xpos, xmat = character.body_frames(q)
    trunk = xpos[:, 1]
    R = xmat[:, 1]
    tilt = 0.5 * np.stack([R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]], axis=1)
    standing = {character.labels[n].limb for n in names}   # the limbs that carry a contact point
    axial = [b for b in range(2, m.nbody) if character.labels[m.body(b).name].limb not in standing]
    body = (xpos[:, axial] - trunk[:, None, :]).reshape(len(q), -1)
    return np.hstack([(trunk[:, None, :] - feet).reshape(len(q), -1), TILT_WEIGHT * tilt, body])


def _symmetric_modes(character, basis) -> np.ndarray:
    """Indices of the modes a preset may use: for a mirror-symmetric creature
    (:func:`gaitforge.modal.symmetry.mirror_of`) its symmetric modes only, so
    the crouch stays a mirror image of itself and the modes computed about
    it can still be told symmetric and antisymmetric (the gait heuristics
    need that); every mode otherwise."""
    from gaitforge.modal.symmetry import mirror_of

    P = mirror_of(character)
    U = basis.shapes
    if P is None:
        return np.arange(U.shape[1])
    return np.flatnonzero(np.linalg.norm(P @ U - U, axis=0) < np.linalg.norm(P @ U + U, axis=0))


def preset_pose(character, basis, name: str) -> np.ndarray:
    """The rest pose (nq,) of preset ``name`` for ``character`` from its modes ``basis``."""
    from gaitforge.motion.grounding import lowest_heights, translate_root

    if name not in PRESETS:
        raise GaitforgeError(f"rest pose {name!r} unknown (presets: {', '.join(PRESETS)})")
    drop = PRESETS[name]
    if drop == 0.0:
        return np.asarray(character.rest_qpos, float).copy()
    sites = np.array(sorted(character.contacts.values()), int)
    if not len(sites):
        raise GaitforgeError(f"{character.name} has no contact points: a crouch needs feet to lower the body onto")
    k = basis.count
    rest = _vectors(character, basis, np.zeros(k), sites)[0]
    n = 3 * len(sites)
    height = float(np.mean(rest[2:n:3]))
    if height <= 0:
        raise GaitforgeError(f"{character.name}'s centre of mass is not above its contact points")
    target = rest.copy()
    target[2:n:3] -= drop * height
    free = _symmetric_modes(character, basis)
    x = np.zeros(k)
    for _ in range(ITERATIONS):
        probe = np.vstack([x, x + STEP * np.eye(k)[free]])
        v = _vectors(character, basis, probe, sites)
        r = target - v[0]
        if float(np.abs(r).max()) < TOLERANCE:
            break
        J = np.zeros((len(r), k))
        J[:, free] = (v[1:] - v[0]).T / STEP              # (F·3, k): the other modes stay at 0
        dx = J.T @ np.linalg.solve(J @ J.T + DAMPING ** 2 * np.eye(len(r)), r)
        size = float(np.linalg.norm(dx))
        dx = dx if size <= MAX_STEP else dx * MAX_STEP / size
        # A step is taken only where it lowers the residual, halved until it does: the full step
        # overshoots on a creature whose modes bend the legs far from linearly (the human's crouch
        # ran away to a toe 11 cm in the air without this).
        for _ in range(HALVINGS):
            moved = target - _vectors(character, basis, (x + dx)[None], sites)[0]
            if float(moved @ moved) < float(r @ r):
                break
            dx = dx / 2
        else:
            break
        x = x + dx
    q = _poses(character, basis, x)
    q = translate_root(character, q, np.array([[0.0, 0.0, -float(lowest_heights(character, q)[0])]]))
    return q[0]


def with_rest_pose(character, qpos: np.ndarray):
    """A copy of ``character`` whose rest pose, and its springs' rest angles, are ``qpos`` (nq,)."""
    import copy

    from gaitforge.creatures.character import Character

    model = copy.deepcopy(character.model)
    model.qpos_spring[:] = qpos
    return Character(model, qpos, name=character.name, labels=dict(character.labels),
                     joints=dict(character.joints), constraints=character.constraints, spec=character.spec,
                     mjspec=character.mjspec)
