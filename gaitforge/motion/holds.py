"""The holding step of the motion pipeline (poses → ground → hold): one
function per :class:`~gaitforge.motion.gaits.HoldingStrategy`, all with the
same call ``(character, basis, grounded) -> MotionClip``, in the registry
:data:`HOLDINGS`.

Each moves a grounded clip's poses by modal IK
(:func:`~gaitforge.motion.modal_ik.pin_stance_feet`) so that the stance
feet do not slide, then puts the lowest contact back on the ground in stance
(and, in a clip that flies smoothly, the centre of mass back on its arcs):

- :func:`pin_plain`: every foot down keeps the horizontal place where it
  landed, frame by frame; what the stance holding does in a clip that does
  not fly.
- :func:`hold_stance`: in a clip that flies, the stance rule's
  targets (:func:`~gaitforge.motion.stance_targets.hold_targets`): the legs
  make up for the smoothing and no swinging foot sinks into the ground.
- :func:`hold_paired`: the centre of mass held too (to all orders: at a fast
  gait's amplitudes the legs' corrections move it), root and centre of mass
  held in flight as well, and a foot's horizontal goal easing from its own
  path onto its anchor before it lands and back after it lifts, as a goal of
  lower priority (a foot let go at once in the first flight frame slipped
  up to 1.6 m/s in one frame). A clip not grounded smoothly, or that does
  not fly, is held the stance way. Measured on the dog and the human at Fr
  0.5–3 (docs/gait_speeds.md): the centre of mass within 3.5 g, skate at
  most 0.006.
- :func:`hold_loose`: as paired, but the root is not held, the centre of
  mass is held on the clip's path smoothed again with free ballistic
  flights, every swinging foot has a goal of lower priority on its own path,
  and the IK moves :data:`HOLD_MODES` elastic modes (:func:`holding_basis`);
  held so even where the clip does not fly (a clip not grounded smoothly
  is held the stance way). For the gallop, whose feet land
  one by one: held the paired way its fitted recipes rolled, pitched and
  yawed the trunk by 50–75° at Fr ≥ 3; held loose, the dog's gallops meet
  every target at Fr 2–5 within 1.4–1.5 g.

Speed ramps and walks made for a speed are grounded and held another way,
with the body smoothed along the whole clip: :mod:`gaitforge.motion.holding`.
"""
from __future__ import annotations

import weakref
import dataclasses
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping, NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import feet_of
from gaitforge.motion.gaits import HoldingStrategy, holding_strategy
from gaitforge.motion.grounding import centres_of_mass, touch_ground, translate_root
from gaitforge.motion.modal_ik import CENTRE_OF_MASS, pin_stance_feet
from gaitforge.motion.steady import kept_chains
from gaitforge.motion.stance_targets import fading_targets, hold_targets

__all__ = ["HOLDINGS", "HOLD_MODES", "GroundedClip", "Holding", "feet_have_contacts", "hold_loose", "hold_paired",
           "hold_stance", "holding_basis", "pin_plain"]

HOLD_MODES = 40       # the loose and smoothed holdings move this many elastic modes (the gait recipes use fewer)


class GroundedClip(NamedTuple):
    """What the grounding step hands the holding: clip (T, nq) on the
    ground; airborne (T,) bool, the frames in flight; blend (T, 3) [m] what
    the grounding's smoothing added to the stance (zeros where it did not
    smooth); smooth: grounded with smooth flight (the centre of mass on the
    arcs; every foot has contact points to hold)."""

    clip: MotionClip
    airborne: np.ndarray
    blend: np.ndarray
    smooth: bool


def pin_plain(character, basis, g: GroundedClip) -> MotionClip:
    """Stance feet pinned where they land (frame by frame), then the lowest contact back on the ground."""
    pinned = pin_stance_feet(character, basis, g.clip, keep=kept_chains(character)).qpos
    return MotionClip(g.clip.fps, touch_ground(character, pinned, fps=g.clip.fps, airborne=g.airborne),
                      character.name)


def hold_stance(character, basis, g: GroundedClip) -> MotionClip:
    """The stance holding (module docstring): :func:`pin_plain` unless the clip flies."""
    if not g.airborne.any():
        return pin_plain(character, basis, g)
    ff, hold = hold_targets(character, g.clip, g.airborne, g.blend)
    pinned = pin_stance_feet(character, basis, g.clip, footfalls=ff, hold=hold, keep=kept_chains(character)).qpos
    return _on_ground(character, g, pinned)


def hold_paired(character, basis, g: GroundedClip) -> MotionClip:
    """The paired holding (module docstring); :func:`hold_stance` unless the clip flies smoothly."""
    if not (g.smooth and g.airborne.any()):
        return hold_stance(character, basis, g)
    return _hold_fading(character, basis, g, loose=False)


def hold_loose(character, basis, g: GroundedClip) -> MotionClip:
    """The loose holding (module docstring); :func:`hold_stance` unless the clip was grounded smoothly."""
    if not g.smooth:
        return hold_stance(character, basis, g)
    return _hold_fading(character, holding_basis(character, basis), g, loose=True)


def _hold_fading(character, basis, g: GroundedClip, *, loose: bool) -> MotionClip:
    """:func:`~gaitforge.motion.stance_targets.fading_targets` held with the
    whole body free to translate; in flight the IK meets the centre of
    mass's target to its tolerance (~1e-9 m) and a translation then puts it
    on it exactly, height included: the touchdown step puts the flights
    back on their arcs, but a flight cut by the clip's end keeps the height
    it has here (the IK's 4e-10 m left its parabola's second difference off
    by that much; the grounding had it on the parabola)."""
    ff, hold, soft = fading_targets(character, g.clip, g.airborne, g.blend, loose=loose)
    pinned = pin_stance_feet(character, basis, g.clip, footfalls=ff, hold=hold, translate=True, soft=soft,
                             keep=kept_chains(character)).qpos
    miss = np.zeros((len(pinned), 3))
    miss[g.airborne] = (hold[CENTRE_OF_MASS] - centres_of_mass(character, pinned))[g.airborne]
    return _on_ground(character, g, translate_root(character, pinned, miss))


def _on_ground(character, g: GroundedClip, pinned: np.ndarray) -> MotionClip:
    """Held poses back on the ground in stance and the centre of mass on its arcs in flight."""
    return MotionClip(g.clip.fps, touch_ground(character, pinned, fps=g.clip.fps, airborne=g.airborne, com=True),
                      character.name)


@dataclass(frozen=True)
class Holding:
    """A holding strategy: hold, its step ``(character, basis, GroundedClip)
    -> MotionClip``; stride_flights: the grounding lets flights keep the mean
    horizontal stance velocity of the stride around them (not their take-off
    velocity; ``ground(stride=)``); bounds_force: the holding keeps the
    stance force bounded, so the speed checks count it."""

    hold: Callable[..., MotionClip]
    stride_flights: bool
    bounds_force: bool


HOLDINGS: Mapping[HoldingStrategy, Holding] = MappingProxyType({
    HoldingStrategy.STANCE: Holding(hold_stance, stride_flights=False, bounds_force=False),
    HoldingStrategy.PAIRED: Holding(hold_paired, stride_flights=True, bounds_force=True),
    HoldingStrategy.LOOSE: Holding(hold_loose, stride_flights=True, bounds_force=True),
    # pinned, a smoothed recipe is held whole by holding.held_walk (synthesize turns to it); this entry
    # grounds it unpinned, as a stance recipe
    HoldingStrategy.SMOOTHED: Holding(hold_stance, stride_flights=False, bounds_force=False),
})


def holding_of(recipe, holding: HoldingStrategy | str | None = None) -> Holding:
    """The :class:`Holding` of ``holding`` (a strategy or its value), or of
    the recipe's own strategy when None; the error lists the valid ones."""
    chosen = recipe.holding if holding is None else holding
    return HOLDINGS[holding_strategy(chosen if chosen is not None else HoldingStrategy.STANCE)]


_HOLDING: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def holding_basis(character, basis, modes: int = HOLD_MODES):
    """The basis a holding moves: ``modes`` elastic modes (default
    :data:`HOLD_MODES`) of the same analysis as ``basis`` (its constraints,
    stiffness scale and gravity, and the DOFs it leaves still: rows of its
    shapes that are all zero, :func:`gaitforge.motion.arms.still_limbs`);
    ``basis`` itself if it has as many, or if the creature has no more.
    Built once per basis and count."""
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
        still = np.flatnonzero(~basis.shapes.any(axis=1))
        if len(still):
            shapes = np.array(held.shapes)
            shapes[still] = 0.0
            shapes.flags.writeable = False
            held = _HOLDING[basis] = dataclasses.replace(held, shapes=shapes)
    return held


def feet_have_contacts(character) -> bool:
    """Whether every foot has contact points to hold on the ground (smooth
    flight needs them; feet tracked by body alone are pinned the plain way)."""
    try:
        feet = feet_of(character)
    except GaitforgeError:
        return False
    return all(f.name in character.contacts for f in feet)
