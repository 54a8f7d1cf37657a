"""The studio's one door into the library's motion and modal layers.

Every call the studio makes below :mod:`gaitforge.api` goes through here, so
that renamed modules (gait data, the controller registry) touch one small
file. Functions are thin and keep the library's units: frequencies [Hz],
speeds [m/s], angles [rad], modal coordinates in mass-normalized units.
"""
from __future__ import annotations

from gaitforge.modal import ModalBasis
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.constants import MODE_POOL as POOL  # the lowest elastic modes a gait mixes (Kry09 §4.3)

__all__ = ["GaitRecipe", "GaitTerm", "ModalBasis", "MotionClip", "gaits", "describe", "suggest", "synthesize",
           "tune", "peak_rotation", "footfalls", "gait_metrics", "POOL", "pool", "natural_speed"]



def pool(character) -> int:
    """How many elastic modes "Modes" computes: the pool a gait at speed
    chooses from (:data:`POOL`, more where the feet have soles:
    :func:`gaitforge.motion.mode_selection.pool_size`)."""
    from gaitforge.motion.mode_selection import pool_size
    return pool_size(character, POOL)


def gaits(character) -> tuple[str, ...]:
    """The gaits the heuristics can suggest for ``character`` (walk, trot, …; may be empty)."""
    from gaitforge.motion.gait_patterns import gaits_for
    return tuple(gaits_for(character))


def describe(character, basis: ModalBasis) -> list[str]:
    """One line per elastic mode of ``basis``: what it moves (e.g. ``bounding (rear legs 39%, …)``)."""
    from gaitforge.modal.describe import describe_modes
    return [d.summary() for d in describe_modes(character, basis)]


def natural_speed(character, gait: str) -> float | None:
    """The speed [m/s] ``gait`` is made at when none is asked, as ``gaitforge
    animate`` makes it: its typical Froude number V²/(g h) where its speeds
    were measured on this built-in creature
    (:func:`gaitforge.motion.presets.natural_froude`), at the creature's hip
    height h; None elsewhere (the Kry09 clip at the gait's own stride frequency)."""
    from gaitforge.motion.presets import natural_froude
    from gaitforge.motion.stride import speed_of

    froude = natural_froude(character.name, gait)
    return None if froude is None else speed_of(character, froude)


def suggest(character, gait: str, basis: ModalBasis, speed: float | None = None) -> GaitRecipe:
    """The suggested recipe for ``gait`` on ``basis`` (Kry09 heuristics), or
    at ``speed`` [m/s] through the at-speed machinery (stride length and
    frequency by dynamic similarity)."""
    if speed is None:
        from gaitforge.motion.heuristics import suggest as kry09
        return kry09(character, gait, basis, pinned=True)
    from gaitforge.motion.speed import suggest_at_speed
    from gaitforge.motion.stride import check_speed

    check_speed(character, speed, None)
    return suggest_at_speed(character, gait, basis, speed=speed, pinned=True)[0]


def synthesize(character, basis: ModalBasis, recipe: GaitRecipe, seconds: float, fps: float, *,
               grounded: bool = True, pin: bool = True) -> MotionClip:
    """A clip of ``recipe`` (Kry09 Eq. 4): ``seconds`` [s] at ``fps``, grounded
    and with stance feet pinned by modal IK when asked."""
    from gaitforge.motion.synthesis import synthesize as eq4
    return eq4(character, basis, recipe, seconds, fps, grounded=grounded, pin_feet=pin and grounded)


def tune(character) -> float:
    """The smallest uniform stiffness scale at which ``character`` holds its
    rest pose within 5° per joint (:func:`gaitforge.modal.tuning.tune_stiffness`)."""
    from gaitforge.modal.tuning import tune_stiffness
    return float(tune_stiffness(character).scale)


def peak_rotation(character, basis: ModalBasis, terms) -> float:
    """Largest joint rotation [rad] the ``terms`` reach over a cycle."""
    from gaitforge.motion.gait_features import peak_rotation as peak
    return float(peak(character, basis, terms))


def footfalls(character, clip: MotionClip):
    """The clip's footfall table (:class:`gaitforge.motion.footfall.Footfalls`)."""
    from gaitforge.motion.footfall import detect_footfalls
    return detect_footfalls(character, clip)


def gait_metrics(character, clip: MotionClip, table):
    """Gait metrics (:class:`gaitforge.motion.metrics.GaitMetrics`) and the
    name of the gait the footfalls ``table`` make of ``clip``."""
    from gaitforge.motion.metrics import classify_gait
    from gaitforge.motion.metrics import gait_metrics as measure
    m = measure(character, clip, table)
    return m, classify_gait(m)
