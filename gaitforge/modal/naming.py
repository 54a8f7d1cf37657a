"""Short human-readable names for vibration modes ("bounding", "back twist",
"alternating legs", "bending 2", "tail lateral bend"), from the numbers
:func:`gaitforge.modal.describe.describe_modes` measures."""
from __future__ import annotations

import numpy as np

SYMMETRIC, ANTISYMMETRIC, MIXED, NO_MIRROR = "symmetric", "antisymmetric", "mixed", "n/a"


def _nodes(values: np.ndarray, cyclic: bool) -> int:
    """Bending order of a chain from its joint bends (n,): sign changes + 1 for
    an open chain, half the (cyclic) sign changes for a ring; bends under 10 %
    of the largest count as zero."""
    v = values[np.abs(values) >= 0.1 * np.abs(values).max()] if values.size else values
    s = np.sign(v)
    if cyclic:
        return max(1, int(np.count_nonzero(s != np.roll(s, 1))) // 2)
    return int(np.count_nonzero(s[1:] != s[:-1])) + 1


def pool_key(region: str) -> str:
    """The region with its side dropped: "rear left leg" → "rear legs", "left arm" → "arms"."""
    words = region.split()
    if len(words) < 2 or words[-2] not in ("left", "right"):
        return region
    return " ".join(w for w in words if w not in ("left", "right")) + "s"


def mode_name(desc, chain: np.ndarray | None, cyclic: bool, moves: dict[str, np.ndarray]) -> str:
    """A short name for the mode ``desc`` (a ``ModeDescription``) where one
    fits, else its main region and what it does there ("tail lateral bend",
    "arms lift"). ``chain`` (3, n): bends of a leg-less chain about x, y, z;
    ``moves``: region → kinetic energy of x, y, z translation and rotation (4,)."""
    axis = max(range(3), key=desc.axis_share.__getitem__)
    if len(desc.feet) < 2:  # no legs: a beam or a ring
        word = ("twist", "bending", "lateral bending")[axis]
        return f"{word} {_nodes(chain[axis], cyclic)}" if chain is not None else word
    limbs = sum(s for r, s in desc.motion_share.items() if r.endswith(("leg", "arm")))
    legs = sum(s for r, s in desc.motion_share.items() if r.endswith("leg"))
    lr = [c for p, c in desc.phases.items() if p.startswith("left/right")]
    fr = [c for p, c in desc.phases.items() if p.startswith("front/rear")]
    planar = desc.sagittal_share >= 0.8
    spine_bend = desc.bend_share.get("spine", 0.0)
    if desc.symmetry == SYMMETRIC:
        if planar and spine_bend >= 0.4:
            return "bounding"  # the back flexes, front and rear feet gather and spread
        if planar and fr and min(fr) < -0.5:
            return "stretch"
        if planar and legs >= 0.3 and lr and min(lr) > 0.5 and any(desc.knee_bend.values()):
            return "squat"
        if not planar and limbs >= 0.5:
            return "jumping jack"
    if desc.symmetry == ANTISYMMETRIC:
        if lr and max(lr) < -0.5 and limbs >= 0.2 and axis == 1:  # legs pitch in turn
            return "alternating legs"
        if not planar and spine_bend >= 0.4 and axis != 1:
            return "back twist" if axis == 0 else "lateral bend"
    if desc.symmetry in (SYMMETRIC, ANTISYMMETRIC):  # both sides move alike: name them together
        pooled: dict[str, np.ndarray] = {}
        for r, e in moves.items():
            pooled[pool_key(r)] = pooled.get(pool_key(r), 0.0) + e
        moves = pooled
    region = max(moves, key=lambda r: moves[r].sum())
    e = moves[region]
    if region.endswith(("leg", "legs", "arm", "arms")):  # limbs: by where they go
        return f"{region} " + ("twist" if e[3] > e[:3].sum()
                               else ("swing", "sideways swing", "lift")[int(np.argmax(e[:3]))])
    return f"{region} " + ("twist", "bend", "lateral bend")[axis]
