"""Hand-set modal gaits of the simple creatures (Kry09 §4.1, Fig. 2–3).

Both drive the two lowest elastic modes 90° apart at the frequency of
Kry09 Fig. 3 (worm, i.e. the linear creature: 5 Hz; loop: 5.26 Hz). The
paper's amplitude (α = 1) is in its own mass normalization; ours
(kg^½ m, ``compute_modes``) needs smaller numbers: the amplitudes were
chosen by hand above the threshold where the creature starts to travel
(worm ≈ 0.0165, loop ≈ 0.0015; see tests/test_modal_control.py).
"""
from __future__ import annotations

import math

from gaitforge.errors import UnknownNameError
from gaitforge.motion.recipe import GaitRecipe, GaitTerm

QUARTER = math.pi / 2.0

_PRESETS = {
    "worm": GaitRecipe("worm_crawl", "worm", (GaitTerm(0, 0.02, 0.0, 5.0), GaitTerm(1, 0.02, QUARTER, 5.0)),
                       description="Kry09 §4.1 linear creature: modes 0 and 1, 90° apart, 5 Hz"),
    "loop": GaitRecipe("loop_roll", "loop", (GaitTerm(0, 0.003, 0.0, 5.26), GaitTerm(1, 0.003, QUARTER, 5.26)),
                       description="Kry09 §4.1 loop creature: modes 0 and 1, 90° apart, 5.26 Hz"),
}

RAMP = 0.5  # s: amplitude fade-in used by the hand-set gaits


def names() -> list[str]:
    """Creatures with a hand-set modal gait."""
    return list(_PRESETS)


def hand_set(creature: str) -> GaitRecipe:
    """The hand-set modal gait of ``creature`` (worm or loop)."""
    try:
        return _PRESETS[creature]
    except KeyError:
        raise UnknownNameError(f"no hand-set modal gait for {creature!r} (available: {', '.join(_PRESETS)})") \
            from None
