"""Kinematic gait synthesis from vibration modes (Kry09 §4.2, Eq. 4).

Every frame's joint displacement from the rest pose θ0 is

    Δθ(t) = Σ_i [α_i sin(2π f̃_i t + γ_i) + β_i] φ_i        (Eq. 4 with the
                                                            §4.3 offsets β_i)

where φ_i = RNu_i is elastic mode i of a :class:`ModalBasis` in joint space
(``basis.shapes[:, i]``). Displacements become poses the way MuJoCo
integrates velocities (``mj_integratePos``): hinge and slide coordinates add,
ball joints and the free root's orientation compose with the exponential map
of the rotation vector. :class:`JointLayout` does this for all frames at once
in numpy (no loop over frames).

Soft joint limits (Kry09 §4.2): a coordinate past its limit by d is pulled
back by d²/(d + Δθ_soft), i.e. left at d·Δθ_soft/(d + Δθ_soft) past it — never
more than Δθ_soft, with slope 1 where the limit is first crossed so nothing
pops. Hinges and slides use their range; ball joints with a cone limit apply
it to their rotation angle.

Ground contact, which the paper leaves out, is ``gaitforge.motion.grounding``.
"""
from __future__ import annotations

import math
import numbers
import weakref

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.grounding import (centres_of_mass, foot_contacts, ground, smooth_ballistic, smoothstep,
                                        touch_ground, translate_root)
from gaitforge.motion.holding import HOLD_MODES, HOLD_SMOOTH_HZ
from gaitforge.motion.recipe import GaitRecipe, check_basis

__all__ = ["JointLayout", "layout", "margin_frames", "modal_coordinates", "poses", "soft_limit_excess", "synthesize"]

_SMALL_ANGLE = 1e-6  # below this rotation angle [rad], sin(θ/2)/θ comes from its Taylor series


def soft_limit_excess(d: np.ndarray, delta: float | np.ndarray) -> np.ndarray:
    """How far past a limit a coordinate ends up when Eq. 4 puts it d > 0
    past: d − d²/(d + Δ) = dΔ/(d + Δ) (Kry09 §4.2); Δ = 0 clamps hard."""
    return d * delta / (d + delta)


def _exp_parts(vx, vy, vz):
    """Components w, x, y, z of exp(v) from the components of v (same shapes)."""
    th2 = vx * vx + vy * vy + vz * vz
    th = np.sqrt(th2)
    half = 0.5 * th
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sin(half) / th
    small = th < _SMALL_ANGLE
    if np.any(small):  # sin(θ/2)/θ → 1/2 − θ²/48 as θ → 0 (and 0/0 at θ = 0)
        s = np.where(small, 0.5 - th2 / 48.0, s)
    return np.cos(half), s * vx, s * vy, s * vz


class JointLayout:
    """Where each kind of coordinate sits in ``qpos`` (nq,) and ``qvel`` (nv,).

    lin_q / lin_v: coordinates that integrate by addition (hinge, slide, the
    free joint's position); quat_q (n, 4) / quat_v (n, 3): orientations (ball
    joints, the free joint's quaternion) that integrate by q ⊗ exp(v) with v
    in the joint's local frame, as MuJoCo does. Limits: ``lim_q``, ``lim_lo``,
    ``lim_hi``, ``lim_rot`` (True: hinge [rad], False: slide [m]) for limited
    hinges and slides; ``cone_k`` (indices into the quaternion groups) and
    ``cone_max`` [rad] for limited ball joints.
    """

    def __init__(self, model: mujoco.MjModel):
        lin_q: list[int] = []
        lin_v: list[int] = []
        quat_q: list[range] = []
        quat_v: list[range] = []
        lim_q, lim_lo, lim_hi, lim_rot, cone_k, cone_max = [], [], [], [], [], []
        for j in range(model.njnt):
            kind, qa, va = int(model.jnt_type[j]), int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j])
            limited = bool(model.jnt_limited[j])
            lo, hi = (float(x) for x in model.jnt_range[j])
            if kind == mujoco.mjtJoint.mjJNT_FREE:
                lin_q += range(qa, qa + 3)
                lin_v += range(va, va + 3)
                quat_q.append(range(qa + 3, qa + 7))
                quat_v.append(range(va + 3, va + 6))
            elif kind == mujoco.mjtJoint.mjJNT_BALL:
                if limited:
                    cone_k.append(len(quat_q))
                    cone_max.append(max(lo, hi))  # MuJoCo reads the larger range value as the cone angle
                quat_q.append(range(qa, qa + 4))
                quat_v.append(range(va, va + 3))
            else:
                if limited:
                    lim_q.append(qa)
                    lim_lo.append(lo)
                    lim_hi.append(hi)
                    lim_rot.append(kind == mujoco.mjtJoint.mjJNT_HINGE)
                lin_q.append(qa)
                lin_v.append(va)
        self.nq, self.nv = model.nq, model.nv
        self.lin_q, self.lin_v = np.array(lin_q, int), np.array(lin_v, int)
        self.quat_q = np.array(quat_q, int).reshape(-1, 4)
        self.quat_v = np.array(quat_v, int).reshape(-1, 3)
        self.lim_q, self.lim_lo, self.lim_hi = np.array(lim_q, int), np.array(lim_lo), np.array(lim_hi)
        self.lim_rot = np.array(lim_rot, bool)
        self.cone_k, self.cone_max = np.array(cone_k, int), np.array(cone_max)

    def integrate(self, q0: np.ndarray, dv: np.ndarray) -> np.ndarray:
        """Poses (T, nq) reached from q0 (nq,) by displacements dv (T, nv):
        ``mj_integratePos(model, q0, dv[t], 1)`` for every frame at once."""
        dv = np.asarray(dv, float)
        out = np.empty((dv.shape[0], self.nq))
        out[:, self.lin_q] = q0[self.lin_q] + dv[:, self.lin_v]
        if len(self.quat_q):
            # One (T, n) array per component: contiguous, so numpy's loops
            # run at full speed (3× faster than (T, n, 4) arrays here).
            b = q0[self.quat_q]
            bw, bx, by, bz = (b / np.linalg.norm(b, axis=-1, keepdims=True)).T
            ew, ex, ey, ez = _exp_parts(*(dv[:, self.quat_v[:, i]] for i in range(3)))
            # q0 ⊗ exp(v): a product of unit quaternions is unit to rounding
            # (~1e-16), so it needs no normalization after.
            qi = self.quat_q
            out[:, qi[:, 0]] = bw * ew - bx * ex - by * ey - bz * ez
            out[:, qi[:, 1]] = bw * ex + bx * ew + by * ez - bz * ey
            out[:, qi[:, 2]] = bw * ey - bx * ez + by * ew + bz * ex
            out[:, qi[:, 3]] = bw * ez + bx * ey - by * ex + bz * ew
        return out

    def soft_limits(self, qpos: np.ndarray, soft_angle: float, soft_length: float) -> np.ndarray:
        """Apply the soft limits in place to poses (T, nq); return them.
        soft_angle [rad]: Δθ_soft of hinges and ball cones; soft_length [m]: of slides."""
        if len(self.lim_q):
            x = qpos[:, self.lim_q]
            delta = np.where(self.lim_rot, soft_angle, soft_length)
            over = np.maximum(x - self.lim_hi, 0.0)
            under = np.maximum(self.lim_lo - x, 0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                x = np.where(over > 0, self.lim_hi + soft_limit_excess(over, delta), x)
                x = np.where(under > 0, self.lim_lo - soft_limit_excess(under, delta), x)
            qpos[:, self.lim_q] = x
        if len(self.cone_k):
            idx = self.quat_q[self.cone_k]
            q = qpos[:, idx]                                    # (T, n, 4)
            q = np.where(q[..., :1] < 0, -q, q)                 # the short way round: w ≥ 0
            s = np.linalg.norm(q[..., 1:], axis=-1)
            angle = 2.0 * np.arctan2(s, q[..., 0])
            over = angle - self.cone_max
            if np.any(over > 0):
                d = np.maximum(over, 0.0)
                with np.errstate(invalid="ignore", divide="ignore"):
                    new = np.where(over > 0, self.cone_max + soft_limit_excess(d, soft_angle), angle)
                axis = q[..., 1:] / np.where(s > 0, s, 1.0)[..., None]
                q = np.concatenate([np.cos(0.5 * new)[..., None], np.sin(0.5 * new)[..., None] * axis], axis=-1)
                qpos[:, idx] = q
        return qpos


_LAYOUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def layout(character) -> JointLayout:
    """The :class:`JointLayout` of ``character``'s model (built once, cached)."""
    lay = _LAYOUTS.get(character)
    if lay is None:
        lay = _LAYOUTS[character] = JointLayout(character.model)
    return lay


def modal_coordinates(recipe: GaitRecipe, times: np.ndarray) -> np.ndarray:
    """Per-term coordinates (T, n_terms): α sin(2π f̃ t + γ) + β at ``times`` (T,) [s]."""
    t = np.asarray(times, float)[:, None]
    a = np.array([[x.amplitude, x.frequency, x.phase, x.offset] for x in recipe.terms]).T
    return a[0] * np.sin((2.0 * np.pi * a[1]) * t + a[2]) + a[3]


def _positive(name: str, value, *, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or value < 0 or (value == 0 and not allow_zero):
        need = "a non-negative" if allow_zero else "a positive"
        raise GaitforgeError(f"{name} must be {need} finite number, got {value!r}")
    return float(value)


def poses(character, basis, recipe: GaitRecipe, times: np.ndarray, soft_limit: float = np.radians(10),
          soft_limit_slide: float = 0.01) -> np.ndarray:
    """Body-relative poses (T, nq) of ``recipe`` on ``basis`` at ``times``
    (T,) [s]: Eq. 4 integrated from the rest pose, with the soft limits
    (soft_limit [rad], soft_limit_slide [m]; see :func:`synthesize`)."""
    lay = layout(character)
    coords = modal_coordinates(recipe, times)                              # (T, n_terms)
    phi = basis.shapes[:, [t.mode for t in recipe.terms]]                 # (nv, n_terms)
    qpos = lay.integrate(basis.rest_qpos, coords @ phi.T)                  # (T, nq)
    return lay.soft_limits(qpos, soft_limit, soft_limit_slide)


def margin_frames(recipe: GaitRecipe, fps: float, limit_seconds: float = 10.0) -> int:
    """Frames synthesized beyond each end of a grounded clip: one period of
    the slowest term (at most ``limit_seconds``), so that the grounding sees
    every flight whole and each foot's lowest height over a full cycle."""
    slowest = min((t.frequency for t in recipe.terms if t.frequency > 0), default=0.0)
    return int(math.ceil(min(1.0 / slowest, limit_seconds) * fps)) if slowest > 0 else 0


MAX_ROTATION = 2 * math.pi  # [rad] modes are linear motions: beyond a full turn they mean nothing


def check_drive(character, basis, recipe: GaitRecipe, fps: float) -> None:
    """Refuse a recipe the clip cannot show: a term faster than half the
    frame rate ``fps`` (it would alias into a slower motion), or amplitudes
    and offsets turning a joint by more than :data:`MAX_ROTATION`."""
    from gaitforge.motion.gait_features import peak_rotation

    for i, t in enumerate(recipe.terms):
        if t.frequency > fps / 2:
            raise GaitforgeError(f"recipe {recipe.name!r}: terms[{i}] runs at {t.frequency:g} Hz, above half the "
                                 f"frame rate ({fps / 2:g} Hz): raise --fps or lower the frequency")
    peak = peak_rotation(character, basis, recipe.terms)
    if not peak <= MAX_ROTATION:
        raise GaitforgeError(f"recipe {recipe.name!r} turns a joint by {math.degrees(peak):.4g}°, more than "
                             f"{math.degrees(MAX_ROTATION):g}°: modes are small motions; lower the amplitudes")


def synthesize(character, basis, recipe: GaitRecipe, seconds: float, fps: float = 60.0, *,
               soft_limit: float = np.radians(10), grounded: bool = True, soft_limit_slide: float = 0.01,
               speed: float | None = None, contact_tol: float | None = None,
               pin_feet: bool = False, flight: bool | None = None, paired: bool | None = None) -> MotionClip:
    """A kinematic gait clip of ``recipe`` (Kry09 Eq. 4 with soft limits).

    basis: the :class:`ModalBasis` the recipe's mode indices refer to (checked
    by :func:`~gaitforge.motion.recipe.check_basis`); seconds [s] and fps
    [frames/s]: the clip holds round(seconds·fps) frames at t = n / fps, so a
    whole number of cycles loops seamlessly; soft_limit: Δθ_soft [rad] of
    hinge and ball-cone limits (0: hard clamp); soft_limit_slide [m]: the same
    for slide joints. grounded: place the creature on the ground with stance
    feet that do not slide (:func:`gaitforge.motion.grounding.ground`; speed
    [m/s] overrides ``recipe.speed``; contact_tol [m]: how far above the
    lowest foot a foot still counts as down). flight (None: the recipe's
    ``flight``, True unless it is a walk): frames
    where no foot is in the lower half of its excursion
    (:func:`~gaitforge.motion.grounding.stance_candidates`) fly on a
    ballistic arc. Walks, and gaits whose feet alternate at one frequency
    (Kry09's), always have a foot that low, so only gaits shaped to fly do
    (the runs, trots, bounds and gallops of
    :func:`~gaitforge.motion.heuristics.suggest`, a hop); False keeps the
    lowest point on the ground in every frame. The grounding sees
    :func:`margin_frames` extra frames on both sides (dropped after), so
    flights at the clip's ends are whole and a clip of whole cycles loops.
    pin_feet: then pin stance feet exactly with modal IK
    (:func:`gaitforge.motion.modal_ik.pin_stance_feet`) and put the frames
    back on the ground and on their flight arcs. In a clip that flies this
    is smooth flight (:mod:`gaitforge.motion.grounding`): the centre of
    mass flies on ballistic arcs, the stance between them is smoothed so
    that its velocity runs on into and out of them, and the IK holds the
    feet on the ground under the smoothed body. Recipes of the
    :data:`PAIRED_GAITS` fly at their stride's mean stance velocity and keep
    root and centre of mass on the smoothed path in every frame, their feet
    easing onto and off their anchors (:func:`_pin`); the gallop
    (:data:`LOOSE_GAITS`) flies the same way and is held with its root
    loose (:func:`_pin` with ``loose``); ``paired`` True or False asks for
    that holding (:data:`SMOOTH_GAITS`), or not, whatever the recipe's name
    (the loose variant still goes by the name).
    Returns a :class:`MotionClip` (T, nq).
    """
    check_basis(recipe, basis, character)
    check_drive(character, basis, recipe, fps)
    if pin_feet and not grounded:
        raise GaitforgeError("pin_feet needs grounded=True: feet are pinned where they touch the ground")
    seconds = _positive("seconds", seconds)
    fps = _positive("fps", fps)
    soft_limit = _positive("soft_limit", soft_limit, allow_zero=True)
    soft_limit_slide = _positive("soft_limit_slide", soft_limit_slide, allow_zero=True)
    n = max(1, int(round(seconds * fps)))
    pad = margin_frames(recipe, fps) if grounded else 0
    qpos = poses(character, basis, recipe, np.arange(-pad, n + pad) / fps, soft_limit, soft_limit_slide)
    airborne = blend = None
    smooth = pin_feet and _feet_have_contacts(character)
    paired = recipe.name in SMOOTH_GAITS if paired is None else bool(paired)
    loose = recipe.name in LOOSE_GAITS
    if grounded:
        g = ground(character, qpos, fps, speed=recipe.speed if speed is None else speed,
                   contact_tol=contact_tol, flight=recipe.flight if flight is None else bool(flight),
                   smooth=smooth, stride=1.0 / recipe.base_frequency if paired else None)
        # Drop the margins; the first kept frame starts where it stands (no horizontal offset).
        start = g.root_offset[pad] * [1.0, 1.0, 0.0]
        qpos = translate_root(character, g.qpos[pad:pad + n], -np.broadcast_to(start, (n, 3)))
        airborne = g.airborne[pad:pad + n]
        blend = g.blend[pad:pad + n] if g.blend is not None else None
    clip = MotionClip(fps, qpos, character.name)
    if pin_feet:
        clip = _pin(character, basis, clip, airborne, blend, paired=paired and smooth, loose=loose)
    return clip


#: Gaits whose feet land in groups of one beat each (a trot's, pace's or
#: bound's pairs, a run's single feet): their flights are held the
#: smoother way (:func:`_pin` with ``paired``). Measured on the dog and the
#: human at Fr 0.5–3 (docs/gait_speeds.md): the centre of mass within
#: 3.5 g, skate at most 0.006, duty factors falling with speed.
PAIRED_GAITS = ("trot", "pace", "bound", "run")

#: Gaits held like the paired ones but with the root loose (:func:`_pin`
#: with ``loose``): the gallop, whose four feet land one by one. With its
#: pairs split by 0.15 cycle its fitted recipes rolled, pitched and yawed
#: the trunk by 50–75° and swept the paws sideways by 0.3–0.5 m at Fr ≥ 3,
#: and holding root, centre of mass and fading feet together on them
#: diverged (skate 0.25–0.72, class unknown); held loose, only Fr 1.5, 2
#: and 3 met every target. Split by 0.1 (gait_patterns.FOOTFALLS), the
#: dog's gallops held loose meet every target at Fr 2, 3, 4 and 5 within
#: 1.4–1.5 g, rolling and yawing the trunk by ~5° (docs/gait_speeds.md).
LOOSE_GAITS = ("gallop",)

#: Every gait held smoothly in flight (the speed check bounds their stance
#: force); recipes of other names keep the plain holding.
SMOOTH_GAITS = PAIRED_GAITS + LOOSE_GAITS



LANDING_BAND = 0.01  # [m] a foot within this of its lowest height and not down is landing or lifting


def _pin(character, basis, clip: MotionClip, airborne: np.ndarray | None, blend: np.ndarray | None, *,
         paired: bool = False, loose: bool = False) -> MotionClip:
    """Pin the stance feet of a grounded clip by modal IK, then put the lowest
    contact back on the ground in stance and the centre of mass back on its
    arc in flight.

    In a clip that flies, ``blend`` (T, 3) [m] is what the grounding's
    smoothing added to the stance (``Grounded.blend``), and the targets are
    read from the clip without it (the stance rule, ``plain``): in every
    stance frame each contact point of each foot (sole, heel, toe) keeps
    its height; a foot detected down keeps the place where it landed (or
    stood in frame 0); a foot landing or lifting (within
    :data:`LANDING_BAND` of its lowest height) keeps its place too, so it
    meets and leaves the ground as it did and the footfalls stay those of
    the plain clip; and the root stays where the smoothing put it (modal IK
    with elastic modes keeps the centre of mass, to first order, so this
    keeps the root moving with it). The legs make up for the smoothing and
    no swinging foot sinks into the ground. Flight frames are left as they
    are.

    paired (:data:`PAIRED_GAITS`): :func:`fading_targets` instead — the
    centre of mass is held too (to all orders: at a fast gait's amplitudes
    the legs' corrections move it), root and centre of mass are held in
    flight as well (on their arcs), and a foot's horizontal goal eases from
    its own path onto its anchor over :data:`FADE` before it lands and back
    after it lifts, as a goal of lower priority (met in the null space of
    the others): a foot let go at once in the first flight frame slipped up
    to 1.6 m/s in one frame.

    loose (with ``paired``; :data:`LOOSE_GAITS`): ``fading_targets(loose=True)``
    — the root is not held, the centre of mass is held on the clip's path
    smoothed again with free ballistic flights, every swinging foot has a
    goal of lower priority on its own path, and a lifting foot stays on its
    anchor while it is still on the ground — and the IK moves
    :data:`~gaitforge.motion.holding.HOLD_MODES` elastic modes (:func:`holding_basis`); a loose
    gait's clip is held so even where it does not fly (some gallop recipes
    keep a foot down throughout: their whole centre-of-mass path is
    smoothed).
    """
    from gaitforge.motion.modal_ik import CENTRE_OF_MASS, pin_stance_feet  # imports this module: not at the top

    if blend is None or airborne is None or not (airborne.any() or (paired and loose)):
        pinned = pin_stance_feet(character, basis, clip).qpos
        return MotionClip(clip.fps, touch_ground(character, pinned, fps=clip.fps, airborne=airborne),
                          character.name)
    if paired:
        ff, hold, soft = fading_targets(character, clip, airborne, blend, loose=loose)
        held = holding_basis(character, basis) if loose else basis
        pinned = pin_stance_feet(character, held, clip, footfalls=ff, hold=hold, translate=True, soft=soft).qpos
        # in flight the IK meets the centre of mass's line to its tolerance (~1e-9 m); a translation
        # puts it on it exactly (the heights are put on the arc below)
        miss = np.zeros((len(pinned), 3))
        miss[airborne, :2] = (hold[CENTRE_OF_MASS] - centres_of_mass(character, pinned))[airborne, :2]
        pinned = translate_root(character, pinned, miss)
    else:
        ff, hold = hold_targets(character, clip, airborne, blend)
        pinned = pin_stance_feet(character, basis, clip, footfalls=ff, hold=hold).qpos
    return MotionClip(clip.fps, touch_ground(character, pinned, fps=clip.fps, airborne=airborne, com=True),
                      character.name)


def hold_targets(character, clip: MotionClip, airborne: np.ndarray, blend: np.ndarray,
                 down: np.ndarray | None = None):
    """What :func:`_pin` holds in a smoothly grounded clip (its docstring):
    footfalls with no foot down (T, F) (the anchors are in the targets) and
    target name → world position (T, 3) [m], NaN where free, for
    :func:`gaitforge.motion.modal_ik.pin_stance_feet`. clip: grounded with
    ``blend`` (T, 3) [m] added to the stance; airborne (T,) bool; down
    (T, F) bool, feet in ``feet_of`` order: the feet down (default: those
    :func:`~gaitforge.motion.footfall.detect_footfalls` finds in the clip
    without the blend)."""
    ff, names, X, keep, xy, _ = _stance_targets(character, clip, airborne, blend, down)
    X[..., :2] = np.where(keep[..., None], xy, np.nan)
    X[airborne] = np.nan
    hold = dict(zip(names, X.transpose(1, 0, 2)))
    root = character.world_points(clip.qpos, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
    root[airborne] = np.nan
    hold[character.bodies[0]] = root
    return ff, hold


def fading_targets(character, clip: MotionClip, airborne: np.ndarray, blend: np.ndarray, *, loose: bool = False):
    """What :func:`_pin` holds for a paired gait: (footfalls, hold, soft) —
    footfalls and hard targets as :func:`hold_targets`, with the root and
    the centre of mass (:data:`~gaitforge.motion.modal_ik.CENTRE_OF_MASS`)
    held in every frame, flight included, where the smoothed clip has them;
    soft: contact name → (T, 3) [m] horizontal goals, NaN where none, of
    the feet easing onto their anchors over the :data:`FADE` before they
    land (from their own path, smoothstep) and off them over the one after
    they lift (never past the middle of the swing); those frames have no
    hard goal for that foot.

    loose (:data:`LOOSE_GAITS`): the root is not held; the centre of mass is
    held on its path in the clip smoothed again, the flights free
    (:func:`~gaitforge.motion.grounding.smooth_ballistic` at
    :data:`~gaitforge.motion.holding.HOLD_SMOOTH_HZ`, as the ramps and held
    walks: the fixed arcs of a gallop's short flights leave 9 g corners at
    touchdown); a lifting foot keeps its anchor as a hard goal while it is
    still within :data:`LANDING_BAND` of its lowest height (its soft goal
    alone let it slip 1.2 m/s on the ground) and eases off it after; a foot
    with no other horizontal goal has a soft one on its own path in the clip
    (left free, the IK swung a gallop's hind paw 0.5 m in one frame)."""
    from gaitforge.motion.modal_ik import CENTRE_OF_MASS  # imports this module: not at the top

    ff, names, X, keep, xy, down = _stance_targets(character, clip, airborne, blend, None)
    own = X[..., :2].copy()
    fading = np.zeros(X.shape[:2], bool)
    K, T = max(1, int(round(FADE * clip.fps))), len(X)
    w = np.zeros(T)
    for k, runs in down.items():
        for r, (start, stop) in enumerate(runs):
            before = runs[r - 1][1] if r > 0 else 0
            after = runs[r + 1][0] if r + 1 < len(runs) else T
            a = max(start - K, (before + start) // 2)                  # landing: towards the anchor
            w[a:start] = smoothstep((np.arange(a, start) - a + 1) / (start - a + 1))
            xy[a:start, k] = own[a:start, k] + w[a:start, None] * (xy[start, k] - own[a:start, k])
            b = min(stop + K, (stop + after + 1) // 2)                 # lift-off: away from it
            w[stop:b] = smoothstep((np.arange(stop, b) - stop + 1) / (b - stop + 1))
            xy[stop:b, k] = xy[stop - 1, k] + w[stop:b, None] * (own[stop:b, k] - xy[stop - 1, k])
            fading[a:start, k] = fading[stop:b, k] = True
            if loose:  # still on the ground: held where it stood
                on = stop
                while on < b and keep[on, k] and not airborne[on]:
                    xy[on, k], fading[on, k] = xy[stop - 1, k], False
                    on += 1
    soft = np.full_like(X, np.nan)
    soft[..., :2] = np.where(fading[..., None], xy, np.nan)
    X[..., :2] = np.where((keep & ~fading)[..., None], xy, np.nan)
    X[airborne] = np.nan
    if loose:  # a swinging foot's own path in the clip (with the blend), where it has no other goal
        m = character.model
        sites = [character.contacts[n] for n in names]
        path = character.world_points(clip.qpos, [m.body(int(m.site_bodyid[i])).name for i in sites],
                                      m.site_pos[sites])
        free = ~np.isfinite(X[..., 0]) & ~fading
        soft[..., :2] = np.where(free[..., None], path[..., :2], soft[..., :2])
    hold = dict(zip(names, X.transpose(1, 0, 2)))
    com = centres_of_mass(character, clip.qpos)
    if loose:
        com = smooth_ballistic(com, airborne, 1.0 / clip.fps, HOLD_SMOOTH_HZ)
    else:
        hold[character.bodies[0]] = character.world_points(clip.qpos, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
    hold[CENTRE_OF_MASS] = com
    return ff, hold, dict(zip(names, soft.transpose(1, 0, 2)))


_HOLDING: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def holding_basis(character, basis, modes: int = HOLD_MODES):
    """The basis a holding moves: ``modes`` elastic modes (default
    :data:`~gaitforge.motion.holding.HOLD_MODES`) of the same analysis as ``basis`` (its constraints,
    stiffness scale and gravity); ``basis`` itself if it has as many, or if
    the creature has no more. Built once per basis and count."""
    count = min(modes, character.nv - basis.n_rigid)
    if basis.count >= count:
        return basis
    held = _HOLDING.get(basis)
    if held is None or held.count != count:
        from gaitforge.modal import compute_modes

        own = len(character.constraints)
        held = _HOLDING[basis] = compute_modes(character, count=count, constraints=basis.constraints[own:],
                                               gravity=basis.gravity, stiffness_scale=basis.stiffness_scale,
                                               method=basis.method)
    return held


def _stance_targets(character, clip: MotionClip, airborne: np.ndarray, blend: np.ndarray, down):
    """The stance rule's targets shared by :func:`hold_targets` and
    :func:`fading_targets`: (footfalls with no foot down, contact names,
    X (T, n, 3) [m] the contact points in the clip without the blend, keep
    (T, n) where their x, y are held, xy (T, n, 2) [m] with each foot down
    held where it landed, contact index → [start, stop) runs down)."""
    from gaitforge.motion.footfall import detect_footfalls, feet_of

    plain = MotionClip(clip.fps, translate_root(character, clip.qpos, -blend), character.name)
    feet = feet_of(character)
    ff = detect_footfalls(character, plain, feet)
    down = (ff.contact if down is None else np.asarray(down, bool)) & ~airborne[:, None]  # (T, F)
    names = foot_contacts(character, feet)
    m = character.model
    sites = [character.contacts[n] for n in names]
    X = character.world_points(plain.qpos, [m.body(int(m.site_bodyid[i])).name for i in sites],
                               m.site_pos[sites])                          # (T, n, 3) stance rule
    keep = np.zeros(X.shape[:2], bool)                                     # where x, y are held too
    xy = X[..., :2].copy()
    runs = {}
    for i, f in enumerate(feet):
        k = names.index(f.name)
        keep[:, k] = down[:, i] | (X[:, k, 2] <= X[:, k, 2].min() + LANDING_BAND)
        runs[k] = _true_runs(down[:, i])
        for start, stop in runs[k]:                                       # down: where it landed
            xy[start:stop, k] = xy[start, k]
    return type(ff)(ff.times, np.zeros_like(ff.contact), ff.names), names, X, keep, xy, runs


FADE = 0.08  # [s] a paired gait's foot eases between its own path and its anchor over this (landing, lift-off)



def _feet_have_contacts(character) -> bool:
    """Whether every foot has contact points to hold on the ground (smooth
    flight needs them; feet tracked by body alone are pinned the plain way)."""
    from gaitforge.motion.footfall import feet_of

    try:
        feet = feet_of(character)
    except GaitforgeError:
        return False
    return all(f.name in character.contacts for f in feet)


def _true_runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True in a (T,) bool mask."""
    edges = np.flatnonzero(np.diff(np.r_[0, np.asarray(mask, bool).astype(np.int8), 0]))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))
