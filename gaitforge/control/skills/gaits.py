"""The footfall graphs the skills creatures' gaits are built from (each
creature's gait set is in its own module: ``dog``, ``gorilla``).

Graphs are written by touchdown phase (the limb lands at ``td`` and lifted
``swing`` earlier), limbs in ``LIMBS`` order (front left, front right, rear
left, rear right):

- lateral-sequence walk (dog): rear left, front left, rear right, front right;
- diagonal-sequence walk (gorilla, Wang 2011 §3.3): rear left, front right,
  rear right, front left; slow: one limb in swing at a time, fast: swings
  overlap (§3.3.1);
- trot / walking trot: diagonal pairs half a cycle apart; short swings when
  slow, longer when fast (§3.4);
- pace (dog): lateral pairs half a cycle apart;
- canter (dog, right lead): three beats a third of a cycle apart — the
  hind left, then the diagonal pair (hind right, fore left) together, then
  the leading fore right;
- gallop (dog, transverse, right lead): the canter when slow, bending by
  speed into hind left, hind right, fore left, fore right, each pair's feet
  a tenth of a cycle apart and the pairs half a cycle apart.

A trot or a pace stands on two feet at a time, on a line: the feet cannot
turn the body about it (``support`` module), so the dog's roll is held by
its stance hips' servos (``stance_kp``, the stance limbs' gains: 0.05 of
full leaves the trunk free to roll about the line; the trot's stiffen to
0.15 above 1 m/s, the pace's are 0.2 throughout) and by short stances
(quicker strides at speed: the body falls off the line as e^(ωt), ω = √(g/h),
for a stance time t). The trot, the pace, the canter and the gallop carry
both leg frames 3 cm lower than the rest pose (``Gait.heights``, legs more
bent): each then held 60 s from every perturbed start at every 0.1 m/s of
its range (``dog.SPEED_RANGES``; the trot at the rest pose's heights
fell once in twelve starts at 1.2 m/s and could not start below 0.6). Why was not
isolated: a lower mass centre alone would fall off its support sooner (ω
grows as h shrinks), so the bent legs' longer reach for the next foothold
and their softer landings are the likelier reason.
"""
from __future__ import annotations

from gaitforge.control.skills.gaitgraph import GaitGraph


def graph(td: tuple[float, float, float, float], swing: float) -> GaitGraph:
    """A graph from touchdown phases and one swing fraction."""
    return GaitGraph(tuple((t - swing) % 1.0 for t in td), (swing,) * 4)  # type: ignore[arg-type]


LATERAL = (0.25, 0.75, 0.0, 0.5)
DIAGONAL = (0.75, 0.25, 0.0, 0.5)
TROT = (0.5, 0.0, 0.0, 0.5)
PACE = (0.5, 0.0, 0.5, 0.0)
CANTER = (1 / 3, 2 / 3, 0.0, 1 / 3)
GALLOP = (0.5, 0.6, 0.0, 0.1)
