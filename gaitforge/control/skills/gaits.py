"""The gait sets of the dog and the gorilla.

Graphs are written by touchdown phase (the limb lands at ``td`` and lifted
``swing`` earlier), limbs in ``LIMBS`` order (front left, front right, rear
left, rear right):

- lateral-sequence walk (dog): rear left, front left, rear right, front right;
- diagonal-sequence walk (gorilla, Wang 2011 §3.3): rear left, front right,
  rear right, front left; slow: one limb in swing at a time, fast: swings
  overlap (§3.3.1);
- trot / walking trot: diagonal pairs half a cycle apart; short swings when
  slow, longer when fast (§3.4);

No pace: the dog's (lateral pairs half a cycle apart) fell within 10 s at
0.4–1.2 m/s.
"""
from __future__ import annotations

from gaitforge.control.skills.gaitgraph import Gait, GaitGraph, standing


def graph(td: tuple[float, float, float, float], swing: float) -> GaitGraph:
    """A graph from touchdown phases and one swing fraction."""
    return GaitGraph(tuple((t - swing) % 1.0 for t in td), (swing,) * 4)  # type: ignore[arg-type]


LATERAL = (0.25, 0.75, 0.0, 0.5)
DIAGONAL = (0.75, 0.25, 0.0, 0.5)
TROT = (0.5, 0.0, 0.0, 0.5)

GORILLA = {
    "stand": standing(),
    "ds_walk": Gait("ds_walk", graph(DIAGONAL, 0.22), graph(DIAGONAL, 0.34), period=(1.4, 1.0),
                    speeds=(0.1, 0.6), twist=0.08, lift_height=(0.10, 0.10),
                    late_reach=(0.1, 0.5)),
    "trot": Gait("trot", graph(TROT, 0.25), graph(TROT, 0.40), period=(1.0, 0.8), speeds=(0.1, 0.6),
                 heights=(-0.04, 0.0), twist=0.0, lift_height=(0.10, 0.10),
                 late_reach=(0.5, 0.5)),
}

DOG = {
    "stand": standing(),
    "walk": Gait("walk", graph(LATERAL, 0.25), graph(LATERAL, 0.35), period=(0.9, 0.6), speeds=(0.2, 1.0),
                 lift_height=(0.06, 0.06)),
    "trot": Gait("trot", graph(TROT, 0.35), graph(TROT, 0.45), period=(0.6, 0.3), speeds=(0.4, 2.0),
                 lift_height=(0.07, 0.07), stance_kp=((1.0, 0.05), (1.2, 0.15))),
}
