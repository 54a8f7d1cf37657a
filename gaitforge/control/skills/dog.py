"""Everything the dog's skills controller is tuned with: its gaits,
physics and gains, speed ranges and gain sets, in one place (``catalog``
serves it as a runner; the footfall graphs are ``gaits``')."""
from __future__ import annotations

from typing import Any, Mapping

from gaitforge.control.skills.creature import SkillCreature
from gaitforge.control.skills.gaitgraph import Gait, standing
from gaitforge.control.skills.gaits import CANTER, GALLOP, LATERAL, PACE, TROT, graph
from gaitforge.control.skills.params import SkillParams

GAITS = {
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
    # (SPEED_RANGES).
    "canter": Gait("canter", graph(CANTER, 0.45), graph(CANTER, 0.45), period=(0.3, 0.3), speeds=(0.4, 2.0),
                   heights=(-0.03, -0.03), lift_height=(0.07, 0.07), stance_kp=((0.0, 0.2),)),
    # Started straight into a gallop's graph from standing (five variants, 1.2
    # and 1.6 m/s, four starts each), 36 of 40 starts fell within 3 s and the
    # two that held 40 s ran 13-16 % slow; starting as a canter (the slow
    # graph) and blending into the gallop's as the commanded speed ramps up,
    # it takes a gallop's four-beat order where SPEED_RANGES says, airborne for at most 0.5 % of
    # its stride and from some starts not at all (docs/physics.md): not yet a dog's gallop.
    # At the dog's 8 ms contacts (PARAMS) the former stance servos (0.15) and 3 cm
    # lower leg frames ran 13-18 % slow at 1.3-1.4 m/s from a quiet start. Softer stance hips
    # and 2 cm frames (benchmarks/robustness.py, 20 perturbed starts x 60 s): 0.08 held 19 and
    # 18 of 20 at 1.3 and 1.35 m/s; 0.1 holds 20 of 20 at 1.3 (all read as a gallop, up to 5.3 %
    # slow), at 1.35 20 of 20 but 2 read as no gait class, at 1.4 16 of 20; 0.1 with 3 cm frames
    # read as a gallop only 10 of 20 at 1.3 (SPEED_RANGES).
    # Its landings are what set the dog's 1 ms step (PARAMS). At the creature's 8 ms contacts its lead
    # fore paw, landing alone, sank 14-17 mm in every perturbed start at 1 ms, past half the paw's
    # 25 mm shortest semi-axis (the contact rule, docs/physics.md); at 4 ms contacts within it, 20 of
    # 20 starts holding (benchmarks/penetration.py, benchmarks/robustness.py).
    "gallop": Gait("gallop", graph(CANTER, 0.45), graph(GALLOP, 0.5), period=(0.3, 0.28), speeds=(0.8, 1.8),
                   heights=(-0.02, -0.02), lift_height=(0.07, 0.07), stance_kp=((0.0, 0.1),),
                   contact_timeconst=0.004),
}

# The dog weighs a fifth of the gorilla: its speed force is scaled with its mass.
# Its physics: under the discrete integrator its rear paws' stance (by their
# contacts) shortened from 0.67 of the stride to 0.51-0.61, so it keeps
# implicitfast; with 2-3 paws in contact against 80 DOFs, PGS (which
# works in the contacts' few dimensions) solves it about 1.7x faster than
# Newton (BENCHMARKS.md).
# Its contacts at an 8 ms time constant (the creature's own is 20 ms): at 20 ms its walk, canter and
# gallop sank 28-31 mm, the 20 mm cap of a lower leg bone at the paw ("heel") touching; at 8 ms only
# the 45 mm paws touch, 8-19 mm deep at mid-range speeds (benchmarks/convergence.py). At 10 ms the
# walk's paws sank 20 mm, a quiet 0.65 m/s walk fell at 5.2 s and perturbed walks lost starts
# (0.425 m/s: 19 of 20 held, 0.65: 13 of 20); at 12 ms the heel touched again. At 8 ms the walk
# held up to 0.425 m/s (0.55 since the swing-window fix) and the gallop, re-tuned (GAITS), 1.3 m/s
# (SPEED_RANGES).
# Its step is 1 ms. At 2 ms the gallop's lead fore paw, landing alone at 1.4-1.6 m/s, sank 19-22 mm
# at its deepest in 60 s (20 perturbed starts, checked every physics step), over the 20 mm cap; at
# 1 ms 15-17 mm, at 0.5 ms 13-14 mm: the depth, not the contacts, was unconverged at 2 ms (neither a
# stiffer solimp, 0.95-0.99 over 15-20 mm, nor PGS at 400 iterations moved it). Gait-only fixes did
# not hold: its own 7 ms contacts read as no gait class on numba's generic CPU, and slower late
# reach or stiffer stance hips (18-20 mm) lost the class at 1 ms. Every gait's speed and stride
# moved by at most 1.3 % from 2 to 1 ms (benchmarks/convergence.py). Those 1 ms depths are still past
# half the paw's 25 mm shortest semi-axis (the contact rule's radius of an ellipsoid), so the gallop
# carries its own 4 ms contacts (GAITS); the other gaits keep 8 ms. The walk's rare deep rear-paw
# landings (up to 18.7 mm, 1-2 starts in 20) came from a stride its front left foot skipped as it
# sped up (the swing-window fix, reference.step_limb); since, its paws stay within 0.8 of their cap
# up to 0.55 m/s (benchmarks/penetration.py, docs/physics.md).
PARAMS = SkillParams(GAITS, kv=300.0 * 31.4 / 157.0, timestep=0.001, integrator="implicitfast",
                     solver="pgs", contact_timeconst=0.008)

# Each end and the middle of every range held 60 s from 20 of 20 perturbed starts (joints
# ±0.01 rad, start speed ±5 %, friction ×0.8–1.2; benchmarks/robustness.py, docs/physics.md),
# and its footfalls read as the gait. Just beyond: the pace at 1.2 m/s held 18 of 20 (falls at
# 13.6 and 30 s), the gallop at 1.45 19 of 20 (and ran up to 10.6 % slow), at 1.5 17 of 20; the
# canter held every start up to 1.1 m/s, but from 0.7 m/s some read as a gallop (0.7: 5 of 20,
# 1.1: 9 of 20). Under the joint limits (sim.limits: each drive clipped to 3 m g L) the walk at
# 0.7 m/s held 19 of 20 (a fall at 35.1 s, its rear shin's drive clipped 0.5 s before; without
# limits 20 of 20); 0.65 held 20 of 20. At 8 ms contacts (PARAMS) the walk at 0.65 m/s held
# 16 of 20 and at 0.6 15 of 20 (falls from 3.6 s), until a stride its front left foot skipped as it
# sped up was fixed (reference.step_limb): since, 0.5-0.6 m/s hold 20 of 20 and 0.65 19 of 20, but
# at 0.6 a rear paw landed 16.9 mm deep (past its 12.5 mm cap) at 41.7 s in one start of 20, so the
# walk ends at 0.55 (its paws within 0.79 of their cap, benchmarks/penetration.py); the
# gallop (stance hips re-tuned, GAITS) holds only 1.3 m/s (1.35: 2 of 20 read as no gait class;
# 1.4: 16 of 20 held). Under the torque-speed envelope (sim.limits) the pace at 1.1, 1.0, 0.9 and
# 0.8 m/s held 0 of 20 (falls from 4 s), 0.7 10 of 20; 0.1, 0.35 and 0.6 held 20 of 20, so the
# pace ends at 0.6.
SPEED_RANGES = {"stand": (0.0, 0.0), "walk": (0.2, 0.55), "trot": (0.4, 1.3), "pace": (0.1, 0.6),
                "canter": (0.3, 0.6), "gallop": (1.3, 1.3)}

# m/s²: how fast a new speed command is followed. At 0.5 m/s² the dog fell in its first strides in
# 2 of 7 starts of a 0.5 m/s walk (front leg frame nosing down at 2.7 s); at 0.3 every start of its
# walk at 0.1 … 0.8 m/s and of its trot held 60 s.
# Named gain sets (overrides of PARAMS, as the gorilla's): "contacts-4ms" runs every gait at the
# gallop's 4 ms contacts, the stiffer setting tried for the walk (docs/physics.md).
GAIN_SETS: dict[str, Mapping[str, Any]] = {"ours": {}, "contacts-4ms": {"contact_timeconst": 0.004}}

DOG = SkillCreature("dog", PARAMS, SPEED_RANGES, GAIN_SETS, accel=0.3, default_gait="trot",
                    default_speed=0.8)
