"""The examples of Kry09 Fig. 3 as ready-made gaits ("presets").

The paper's mode indices refer to its own models, so none is copied: every
preset is made by :func:`gaitforge.motion.heuristics.suggest` on our
creatures, with the rest pose and modal constraints of the paper's example:

- dog trot, amble and gallop;
- human walk in the T-pose; run in the bent-knee rest pose (``human_run``);
  jumping; jumping jacks with a posture offset that shifts the weight onto
  one leg (Kry09 §5);
- a run with a stable head: the modes are computed with the head's
  orientation locked (``lock:head``), so every mode, and the gait, keeps it
  (to first order: it is kept to 10° of joint rotation, at which the head
  turns by 0.83°, 1.08° at 12°; at 22° the run's bounce modes turn it by ~4°);
- a walk pushing a cart: the hands hold one shared point (a loop constraint
  ``loop:left_hand:right_hand``), so they keep their relative position.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from gaitforge.naming import match
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import UnknownNameError
from gaitforge.modal import compute_modes
from gaitforge.modal.describe import ANTISYMMETRIC, describe_modes
from gaitforge.motion import gait_features, heuristics
from gaitforge.motion.gaits import HoldingStrategy
from gaitforge.motion.recipe import GaitRecipe, GaitTerm

OFFSET_ROTATION = math.radians(8)  # largest joint rotation of the jumping jack's posture offset


@dataclass(frozen=True)
class Preset:
    """A named example: ``gait`` (one of :data:`heuristics.GAITS`) on built-in
    ``creature``, analysed in ``rest_pose`` (a built-in creature with the same
    skeleton, or None) with extra modal ``constraints``; ``offset``: add the
    weight-shift posture offset; ``summary``: one line for listings;
    ``rotation``: the largest joint rotation [rad] (modes hold constraints to
    first order only, so the cart walk is kept smaller); ``holding``: how its
    feet are held, checked and shown (the stance holding: the presets were
    made and measured so, before the paired and loose holdings existed);
    pinned: whether its stance feet may be pinned (the jump's cannot: the
    stance holding's IK, asked to hold both feet and the root, turns the
    forearms and the head round and round)."""

    name: str
    creature: str
    gait: str
    summary: str
    rest_pose: str | None = None
    constraints: tuple[str, ...] = ()
    offset: bool = False
    rotation: float = heuristics.ROTATION
    holding: HoldingStrategy = HoldingStrategy.STANCE
    pinned: bool = True

    @property
    def pose(self) -> str:
        """The built-in creature whose rest pose the modes are computed about."""
        return self.rest_pose or self.creature


PRESETS: tuple[Preset, ...] = (
    Preset("dog-trot", "dog", "trot", "dog trot: diagonal pairs together, half a cycle apart"),
    Preset("dog-amble", "dog", "amble", "dog amble: four beats, lateral sequence"),
    Preset("dog-gallop", "dog", "gallop", "dog transverse gallop: pairs land in quick succession"),
    Preset("human-walk", "human", "walk", "human walk in the T-pose, arms out"),
    Preset("human-run", "human", "run", "human run in the bent-knee, bent-elbow rest pose", rest_pose="human_run"),
    Preset("human-jumping", "human", "jump", "human jumping on the spot, knees and feet together", pinned=False),
    Preset("human-jumping-jacks", "human", "jumping_jacks",
           "human jumping jacks, weight shifted onto one leg by a posture offset", offset=True),
    Preset("human-run-stable-head", "human", "run", "human run with the head's orientation locked",
           rest_pose="human_run", constraints=("lock:head",), rotation=math.radians(10)),
    Preset("human-pushing-cart", "human", "walk", "human walk with both hands on one cart handle",
           rest_pose="human_run", constraints=("loop:left_hand:right_hand",), rotation=math.radians(18)),
)


def names() -> list[str]:
    """Preset names in listing order."""
    return [p.name for p in PRESETS]


def find(name: str) -> Preset | None:
    """The preset called ``name`` (``dog-trot`` or ``dog_trot``), or None.
    A built-in creature's exact name is never taken for a preset
    (``human_run`` is the creature, ``human-run`` the preset)."""
    if name in registry.names():
        return None
    found = match(name, names())
    return next((p for p in PRESETS if p.name == found), None)


def get(name: str) -> Preset:
    """The preset called ``name``; the error lists the valid ones."""
    p = find(name)
    if p is None:
        raise UnknownNameError(f"unknown preset {name!r} (presets: {', '.join(names())})")
    return p


def character(preset: Preset) -> Character:
    """The character a preset is synthesized on: its rest-pose creature."""
    return Character.from_spec(registry.build(preset.pose))


def basis(preset: Preset, char: Character | None = None):
    """The :class:`ModalBasis` a preset's mode indices refer to: the lowest
    ``heuristics.POOL`` elastic modes of its rest-pose creature with its
    constraints."""
    return compute_modes(char or character(preset), count=heuristics.POOL, constraints=preset.constraints)


def weight_shift_offset(char: Character, modal_basis, taken=()) -> GaitTerm:
    """A posture offset (α = 0, f̃ = 0, β ≠ 0) that moves the body sideways
    over one foot: the antisymmetric, mostly out-of-plane mode with the
    largest sideways foot motion per unit energy, sized so that its largest
    joint rotation is OFFSET_ROTATION."""
    descs = describe_modes(char, modal_basis)[:heuristics.POOL]
    ok = [d for d in descs if d.symmetry == ANTISYMMETRIC and d.sagittal_share < 0.5 and d.index not in taken]
    best = max(ok, key=lambda d: np.mean([abs(f.lateral) for f in d.feet]) / d.frequency)
    rot = float(gait_features.joint_rotations(char, modal_basis.shapes[:, [best.index]])[0])
    return GaitTerm(best.index, 0.0, 0.0, 0.0, offset=OFFSET_ROTATION / rot)


def natural_froude(creature: str, gait: str) -> float | None:
    """The Froude number a gait is made at when no speed is asked: the
    gait's typical one (``GaitSpec.typical_froude``) where its speeds were
    measured on built-in ``creature`` (``GaitSpec.speed_ranges``,
    docs/gait_speeds.md); None elsewhere (no such gait, no speed law, or a
    creature whose speeds nobody measured: the Kry09 clip)."""
    from gaitforge.motion.gaits import GAITS

    spec = GAITS.get(gait)
    if spec is None or creature not in spec.speed_ranges:
        return None
    return spec.typical_froude


def has_speed(preset: Preset) -> bool:
    """Whether ``preset`` can be made at a speed (:func:`at_speed`): its gait
    has a speed law on its creature, and it asks for no extra constraints
    (a locked head, hands on a cart: the at-speed pipeline's holding moves
    the feet by IK and swings the arms, which would break them)."""
    return not preset.constraints and natural_froude(preset.creature, preset.gait) is not None


def at_speed(name: str, *, speed: float | None = None, froude: float | None = None, pinned: bool = True,
             strict: bool = False):
    """Preset ``name``'s gait at ``speed`` [m/s] or Froude number ``froude``
    (neither: the gait's typical one) on the preset's rest pose and with its
    constraints, by the at-speed machinery
    (:func:`gaitforge.motion.speed.suggest_at_speed`): (character, basis,
    recipe named after the preset). Its gait must have a speed law."""
    from gaitforge.errors import GaitforgeError
    from gaitforge.motion import speed as speeds
    from gaitforge.motion.mode_selection import pool_size

    p = get(name)
    if not has_speed(p):
        why = (f"its gait {p.gait!r} has no speed law on {p.creature}" if not p.constraints else
               f"the at-speed holding (feet IK, arm swing) does not keep its constraints ({', '.join(p.constraints)})")
        raise GaitforgeError(f"{p.name}: {why}; it has the Kry09 clip only (no speed or Froude number)")
    char = character(p)
    modal_basis = compute_modes(char, count=pool_size(char), constraints=p.constraints)
    recipe = speeds.suggest_at_speed(char, p.gait, modal_basis, speed=speed, froude=froude, pinned=pinned,
                                     strict=strict)[0]
    recipe = replace(recipe, name=p.name, creature=p.creature, rest_pose=p.rest_pose, constraints=p.constraints,
                     description=f"{p.name}: the {p.gait} at speed. {recipe.description}")
    return char, modal_basis, recipe


def build(name: str, char: Character | None = None, modal_basis=None, *, pinned: bool = False,
          strict: bool = False) -> GaitRecipe:
    """The recipe of preset ``name`` (deterministic). ``char`` and
    ``modal_basis``: the preset's character and basis if already built
    (:func:`character`, :func:`basis`); ``pinned``, ``strict``: see
    :func:`heuristics.suggest`."""
    p = get(name)
    char = char or character(p)
    modal_basis = modal_basis or basis(p, char)
    # checked as it will be shown: under the preset's holding, which the recipe records
    recipe = heuristics.suggest(char, p.gait, modal_basis, rotation=p.rotation, pinned=pinned,
                                strict=strict, holding=p.holding)
    terms = recipe.terms
    if p.offset:
        terms += (weight_shift_offset(char, modal_basis, tuple(t.mode for t in terms)),)
    # Kry09's presets keep their arms as the modes move them (the cart's hands share a handle)
    return replace(recipe, name=p.name, creature=p.creature, rest_pose=p.rest_pose, terms=terms, holding=p.holding,
                   arm_swing=0.0, still_arms=False, posture=None,
                   description=f"{p.summary} (Kry09 Fig. 3). {recipe.description}")
