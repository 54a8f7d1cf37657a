"""What a clip of a recipe is made of, checked before it is made: the
margin of frames synthesized beyond its ends, and the limits on what a
recipe may ask of a frame rate and of the joints. Shared by the steps of
the motion pipeline (:mod:`.synthesis`, :mod:`.holding`)."""
from __future__ import annotations

import math
import numbers

from gaitforge.errors import GaitforgeError
from gaitforge.motion.recipe import GaitRecipe

__all__ = ["MAX_ROTATION", "check_drive", "margin_frames", "positive"]

MAX_ROTATION = 2 * math.pi  # [rad] modes are linear motions: beyond a full turn they mean nothing


def positive(name: str, value, *, allow_zero: bool = False) -> float:
    """``value`` as a float if it is a positive (``allow_zero``: non-negative)
    finite number; else a :class:`GaitforgeError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
            or value < 0 or (value == 0 and not allow_zero):
        need = "a non-negative" if allow_zero else "a positive"
        raise GaitforgeError(f"{name} must be {need} finite number, got {value!r}")
    return float(value)


def margin_frames(recipe: GaitRecipe, fps: float, limit_seconds: float = 10.0) -> int:
    """Frames synthesized beyond each end of a grounded clip: one period of
    the slowest term (at most ``limit_seconds``), so that the grounding sees
    every flight whole and each foot's lowest height over a full cycle."""
    slowest = min((t.frequency for t in recipe.terms if t.frequency > 0), default=0.0)
    return int(math.ceil(min(1.0 / slowest, limit_seconds) * fps)) if slowest > 0 else 0


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
