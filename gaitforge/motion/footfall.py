"""Feet and footfalls: which points of a character touch the ground, and when.

A *footfall pattern* is a boolean contact table (frames × feet). It comes
either from a kinematic clip (a foot is down when it is low and nearly still,
:func:`detect_footfalls`) or from contact states a simulation already knows
(:func:`footfalls_from_contacts`). Gait metrics and gait diagrams consume it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaitforge.creatures.spec import vec3
from gaitforge.errors import GaitforgeError, UnknownNameError

FOOT_SUFFIXES = ("_foot", "_knuckle")  # knuckle-walkers bear weight on their knuckles
_LIMB_ORDER: dict[str | None, int] = {"front": 0, "rear": 1}
_SIDE_ORDER: dict[str | None, int] = {"left": 0, "right": 1}


@dataclass(frozen=True)
class Foot:
    """A tracked foot: ``name`` (contact point or body name), the ``body`` it is
    fixed in and the ``point`` (3,) [m, body frame] to track; ``limb``
    (front/rear or None) and ``side`` (left/right/center)."""

    name: str
    body: str
    point: tuple[float, float, float]
    limb: str | None
    side: str


def _from_name(name: str, words: tuple[str, ...]) -> str | None:
    tokens = name.lower().split("_")
    hits = [w for w in words if w in tokens]
    return hits[0] if len(hits) == 1 else None


def _foot(character, name: str, body: str, point) -> Foot:
    """A foot labelled by its body's labels, falling back on words in its name
    (imported models carry no labels)."""
    lab = character.labels[body]
    limb = lab.limb or _from_name(name, ("front", "rear"))
    side = lab.side if lab.side != "center" else (_from_name(name, ("left", "right")) or "center")
    return Foot(name, body, vec3(point), limb, side)


def _site_foot(character, name: str) -> Foot:
    m, sid = character.model, character.contacts[name]
    return _foot(character, name, m.body(int(m.site_bodyid[sid])).name, m.site_pos[sid])


def _body_foot(character, body: str) -> Foot:
    """A foot body without a contact point: track the centre of its geom that
    sits lowest in the rest pose (the body origin is usually the ankle)."""
    m, bid = character.model, character.body_id(body)
    geoms = np.flatnonzero(m.geom_bodyid == bid)
    if len(geoms) == 0:
        return _foot(character, body, body, (0.0, 0.0, 0.0))
    d = character.make_data()
    low = geoms[np.argmin(d.geom_xpos[geoms, 2])]
    return _foot(character, body, body, m.geom_pos[low])


def _ordered(feet: list[Foot]) -> list[Foot]:
    # Front before rear, left before right: the row order of a gait diagram.
    return sorted(feet, key=lambda f: (_LIMB_ORDER.get(f.limb, 2), _SIDE_ORDER.get(f.side, 2)))


def feet_of(character) -> list[Foot]:
    """The character's feet, front-left first.

    Contact points named ``foot`` or ``*_foot`` / ``*_knuckle`` (heel and toe
    points are extra samples of a foot, not feet); without any, the bodies
    with role ``foot`` or ``hand``. Raises if there are neither.
    """
    names = [n for n in character.contacts if n == "foot" or n.endswith(FOOT_SUFFIXES)]
    if names:
        return _ordered([_site_foot(character, n) for n in names])
    bodies = [b for b, lab in character.labels.items() if lab.role in ("foot", "hand")]
    if not bodies:
        raise GaitforgeError(f"{character.name} has no feet: no contact point named *_foot or *_knuckle "
                             f"and no body with role foot or hand")
    return _ordered([_body_foot(character, b) for b in bodies])


def feet_named(character, names) -> list[Foot]:
    """Feet for the given names: feet of :func:`feet_of` first, then any
    contact point, then any body (tracked at its lowest rest geom)."""
    known = {f.name: f for f in feet_of(character)}
    out = []
    for n in names:
        if n in known:
            out.append(known[n])
        elif n in character.contacts:
            out.append(_site_foot(character, n))
        elif n in character.labels:
            out.append(_body_foot(character, n))
        else:
            raise UnknownNameError(f"unknown foot {n!r} in {character.name} "
                                   f"(feet: {', '.join(known)})")
    return out


def foot_positions(character, qpos: np.ndarray, feet: list[Foot]) -> np.ndarray:
    """World positions (T, F, 3) [m] of the feet over frames ``qpos`` (T, nq)."""
    return character.world_points(np.atleast_2d(qpos), [f.body for f in feet],
                                  np.array([f.point for f in feet]).reshape(-1, 3))


def _parts(character, foot: Foot) -> list[str]:
    """Contact points that belong to ``foot``: those sharing its name's prefix
    (``left_foot`` → ``left_heel``, ``left_toe``; ``front_left_knuckle`` →
    ``front_left_*``). Empty for feet tracked by body."""
    for suffix in ("foot", "knuckle"):
        if foot.name in character.contacts and foot.name.endswith(suffix):
            prefix = foot.name[: -len(suffix)]
            return [n for n in character.contacts if n.startswith(prefix)]
    return []


def _lowest_part_heights(character, qpos: np.ndarray, feet: list[Foot], z: np.ndarray) -> np.ndarray:
    """Per frame, the height of each foot's lowest part (T, F) [m]: a foot with
    a heel and a toe is down when either touches, not only its mid-sole."""
    m = character.model
    out = z.copy()
    for i, f in enumerate(feet):
        parts = [p for p in _parts(character, f) if p != f.name]
        if not parts:
            continue
        sites = [character.contacts[p] for p in parts]
        bodies = [m.body(int(m.site_bodyid[sid])).name for sid in sites]
        heights = character.world_points(np.atleast_2d(qpos), bodies, m.site_pos[sites])[..., 2]
        out[:, i] = np.minimum(z[:, i], heights.min(axis=1))
    return out


def feet_in_contact(character, data, feet: list[Foot]) -> np.ndarray:
    """(F,) bool: whether MuJoCo's contact list in ``data`` pairs a ground geom
    (one of the world body's) with a geom of each foot's body or of a body
    below it (toes count as the foot). Sample it every frame of a
    simulation and pass the table to :func:`footfalls_from_contacts`."""
    m = character.model
    bodies = m.geom_bodyid[np.asarray(data.contact.geom[:data.ncon], int)].reshape(-1, 2)
    touching = np.r_[bodies[bodies[:, 0] == 0, 1], bodies[bodies[:, 1] == 0, 0]]
    out = np.zeros(len(feet), bool)
    for i, f in enumerate(feet):
        root = character.body_id(f.body)
        for b in np.unique(touching):
            while b > root:  # parents have smaller ids than their children
                b = int(m.body_parentid[b])
            out[i] |= b == root
    return out


@dataclass(frozen=True, eq=False)
class Footfalls:
    """Contact table: ``times`` (T,) [s], ``contact`` (T, F) bool, ``names`` (F,)
    of the feet (columns). Arrays are read-only copies."""

    times: np.ndarray
    contact: np.ndarray
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        t = np.array(self.times, dtype=float).reshape(-1)
        c = np.array(self.contact, dtype=bool)
        names = tuple(self.names)
        if c.ndim != 2 or c.shape != (len(t), len(names)):
            raise GaitforgeError(f"footfalls: contact must have shape (frames, feet) = ({len(t)}, {len(names)}), "
                                 f"got {c.shape}")
        if len(t) > 1 and not np.all(np.diff(t) > 0):
            raise GaitforgeError("footfalls: times must increase strictly")
        if len(set(names)) != len(names):
            raise GaitforgeError(f"footfalls: duplicate foot names in {names}")
        t.flags.writeable = False
        c.flags.writeable = False
        object.__setattr__(self, "times", t)
        object.__setattr__(self, "contact", c)
        object.__setattr__(self, "names", names)

    @property
    def n_frames(self) -> int:
        return self.contact.shape[0]

    @property
    def dt(self) -> float:
        """Median frame interval [s]."""
        return float(np.median(np.diff(self.times))) if self.n_frames > 1 else float("nan")

    def touchdowns(self, foot: int | str) -> np.ndarray:
        """Frame indices where ``foot`` (index or name) lands: off in the frame
        before, on in this one. A contact already on at frame 0 is no landing."""
        i = self.names.index(foot) if isinstance(foot, str) else foot
        col = self.contact[:, i]
        return np.flatnonzero(col[1:] & ~col[:-1]) + 1

    def liftoffs(self, foot: int | str) -> np.ndarray:
        """Frame indices of the first airborne frame after a contact."""
        i = self.names.index(foot) if isinstance(foot, str) else foot
        col = self.contact[:, i]
        return np.flatnonzero(~col[1:] & col[:-1]) + 1


def _drop_short_runs(col: np.ndarray, value: bool, min_frames: float) -> np.ndarray:
    """Flip interior runs of ``value`` shorter than ``min_frames`` (runs that
    touch the clip's ends are kept: their true length is unknown)."""
    edges = np.flatnonzero(np.diff(col.astype(np.int8))) + 1
    starts = np.r_[0, edges]
    ends = np.r_[edges, len(col)]
    out = col.copy()
    for s, e in zip(starts[1:-1], ends[1:-1]):
        if col[s] == value and e - s < min_frames:
            out[s:e] = not value
    return out


def debounce(contact: np.ndarray, fps: float, min_duration: float, min_gap: float | None = None) -> np.ndarray:
    """Remove flicker from a (T, F) contact table: first fill airborne gaps
    shorter than ``min_gap`` [s] (None: ``min_duration``), then drop contacts
    shorter than ``min_duration`` [s]."""
    c = np.array(contact, dtype=bool)
    n = min_duration * fps - 1e-9  # runs of n frames last n / fps seconds
    gap = (min_duration if min_gap is None else min_gap) * fps - 1e-9
    for f in range(c.shape[1]):
        if gap > 1:
            c[:, f] = _drop_short_runs(c[:, f], False, gap)
        if n > 1:
            c[:, f] = _drop_short_runs(c[:, f], True, n)
    return c


def footfalls_from_contacts(contact, names, *, times=None, fps: float | None = None,
                            min_duration: float = 0.0, min_gap: float | None = None) -> Footfalls:
    """Footfalls from known contact states (e.g. MuJoCo contacts of a
    simulation): ``contact`` (T, F) bool; give ``times`` (T,) [s] or ``fps``;
    ``min_duration`` [s] > 0 debounces, ``min_gap`` [s] apart for the
    airborne gaps (see :func:`debounce`)."""
    c = np.asarray(contact, dtype=bool)
    if (times is None) == (fps is None):
        raise GaitforgeError("footfalls: give either times or fps")
    if times is None:
        assert fps is not None  # exactly one of them was given
        t = np.arange(c.shape[0]) / fps
    else:
        t = np.asarray(times, float)
    if (min_duration > 0 or (min_gap or 0.0) > 0) and c.ndim == 2 and len(t) > 1:
        c = debounce(c, 1.0 / float(np.median(np.diff(t))), min_duration, min_gap)
    return Footfalls(t, c, tuple(names))


def detect_footfalls(character, clip, feet: list[Foot] | None = None, *, height_tol: float = 0.005,
                     speed_tol: float = 0.3, min_speed: float = 0.05, ground: float | None = None,
                     min_duration: float = 0.03) -> Footfalls:
    """Contacts of a kinematic clip from the feet's heights and speeds.

    A foot lands when it is within ``height_tol`` [m] of the ground — its own
    lowest height in the clip (``ground=None``: synthesized clips need not put
    feet exactly at z = 0) or the given height [m] — and its horizontal speed
    is below ``speed_tol`` × its 95th-percentile horizontal speed (or below
    ``min_speed`` [m/s], for feet that hardly move). It lifts off only once
    above twice the tolerance or faster than 1.5 × that speed limit
    (hysteresis: a foot hovering in between keeps its state); contacts and gaps
    shorter than ``min_duration`` [s] are then removed. feet: default
    :func:`feet_of`. Returns footfalls over the clip's frames.
    """
    clip.check_character(character)
    feet = feet_of(character) if feet is None else list(feet)
    P = foot_positions(character, clip.qpos, feet)  # (T, F, 3)
    z = _lowest_part_heights(character, clip.qpos, feet, P[..., 2])
    floor = z.min(axis=0) if ground is None else np.full(len(feet), float(ground))
    if clip.n_frames > 1:
        speed = np.linalg.norm(np.gradient(P[..., :2], clip.dt, axis=0), axis=-1)  # (T, F)
    else:
        speed = np.zeros_like(z)
    limit = np.maximum(speed_tol * np.percentile(speed, 95, axis=0), min_speed)
    down = (z <= floor + height_tol) & (speed <= limit)
    up = (z > floor + 2.0 * height_tol) | (speed > 1.5 * limit)
    # Schmitt trigger, vectorized: frames that are neither clearly down nor
    # clearly up keep the state of the last frame that was (a foot never
    # decided is airborne).
    # Frames before the first decided one take its state.
    state = np.where(down, 1, np.where(up, 0, -1))
    decided = state >= 0
    cols = np.arange(len(feet))
    last = np.maximum.accumulate(np.where(decided, np.arange(len(z))[:, None], 0), axis=0)
    last = np.where(decided[last, cols], last, np.argmax(decided, axis=0))
    contact = state[last, cols] == 1
    contact = debounce(contact, clip.fps, min_duration)
    return Footfalls(clip.times, contact, tuple(f.name for f in feet))
