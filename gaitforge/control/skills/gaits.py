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
its range (``catalog.SPEED_RANGES``; the trot at the rest pose's heights
fell once in twelve starts at 1.2 m/s and could not start below 0.6). Why was not
isolated: a lower mass centre alone would fall off its support sooner (ω
grows as h shrinks), so the bent legs' longer reach for the next foothold
and their softer landings are the likelier reason.
"""
from __future__ import annotations

from gaitforge.control.skills.gaitgraph import Gait, GaitGraph, standing


def graph(td: tuple[float, float, float, float], swing: float) -> GaitGraph:
    """A graph from touchdown phases and one swing fraction."""
    return GaitGraph(tuple((t - swing) % 1.0 for t in td), (swing,) * 4)  # type: ignore[arg-type]


LATERAL = (0.25, 0.75, 0.0, 0.5)
DIAGONAL = (0.75, 0.25, 0.0, 0.5)
TROT = (0.5, 0.0, 0.0, 0.5)
PACE = (0.5, 0.0, 0.5, 0.0)
CANTER = (1 / 3, 2 / 3, 0.0, 1 / 3)
GALLOP = (0.5, 0.6, 0.0, 0.1)

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
    # Strides as before up to 1 m/s (on the line from 0.6 s at 0.4 m/s to 0.45 s
    # at 2 m/s), quicker from 1.1 m/s (on the line to 0.3 s at 2 m/s), where the
    # stance servos have stiffened.
    "trot": Gait("trot", graph(TROT, 0.35), graph(TROT, 0.45), period=(0.6, 0.45), speeds=(0.4, 2.0),
                 heights=(-0.03, -0.03), lift_height=(0.07, 0.07), stance_kp=((1.0, 0.05), (1.2, 0.15)),
                 stride_knots=((1.0, 0.54375), (1.1, 0.46875), (2.0, 0.3))),
    "pace": Gait("pace", graph(PACE, 0.35), graph(PACE, 0.45), period=(0.5, 0.35), speeds=(0.4, 2.0),
                 heights=(-0.03, -0.03), lift_height=(0.07, 0.07), stance_kp=((0.0, 0.2),)),
    # Between its beats the canter stands on one foot (the hind left before the
    # pair lands, the fore right before the hind left): nothing then holds the
    # trunk's roll but the stance hip's servo and the next foothold. Lowering
    # both leg frames 3 cm turned starts that fell about one in three into a
    # steady cycle; quick 0.3 s strides keep the one-foot moments short
    # (catalog.SPEED_RANGES).
    "canter": Gait("canter", graph(CANTER, 0.45), graph(CANTER, 0.45), period=(0.3, 0.3), speeds=(0.4, 2.0),
                   heights=(-0.03, -0.03), lift_height=(0.07, 0.07), stance_kp=((0.0, 0.2),)),
    # Started straight into a gallop's graph from standing (five variants, 1.2
    # and 1.6 m/s, four starts each), 36 of 40 starts fell within 3 s and the
    # two that held 40 s ran 13-16 % slow; starting as a canter (the slow
    # graph) and blending into the gallop's as the commanded speed ramps up,
    # it gallops (four beats, a little flight) where catalog.SPEED_RANGES says.
    # At the dog's 8 ms contacts (catalog.PARAMS) the former stance servos (0.15) and 3 cm
    # lower leg frames ran 13-18 % slow at 1.3-1.4 m/s from a quiet start. Softer stance hips
    # and 2 cm frames (benchmarks/robustness.py, 20 perturbed starts x 60 s): 0.08 held 19 and
    # 18 of 20 at 1.3 and 1.35 m/s; 0.1 holds 20 of 20 at 1.3 (all read as a gallop, up to 5.3 %
    # slow), at 1.35 20 of 20 but 2 read as no gait class, at 1.4 16 of 20; 0.1 with 3 cm frames
    # read as a gallop only 10 of 20 at 1.3 (catalog.SPEED_RANGES).
    # At 8 ms one landing in 60 s sank its paw 20.7 mm (the cap is 20), so the gallop has its own
    # 7 ms contacts: 18.9 mm at most from a quiet start, 20 of 20 held at 1.3 m/s, all galloping
    # (16 of 20 at half the step, 4 read as no class). 6 ms: 15.8 mm, but 1-2 of 20 read as no
    # class at either step; 8 ms with 6 cm swing lift: 15.2 mm, but 20 of 20 no class at half the step.
    "gallop": Gait("gallop", graph(CANTER, 0.45), graph(GALLOP, 0.5), period=(0.3, 0.28), speeds=(0.8, 1.8),
                   heights=(-0.02, -0.02), lift_height=(0.07, 0.07), stance_kp=((0.0, 0.1),),
                   contact_timeconst=0.007),
}
