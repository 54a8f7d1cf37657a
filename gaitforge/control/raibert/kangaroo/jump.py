"""The kangaroo's jump over a box (RH91 §4, "Kangaroo control"): the plan,
the states it adds to hopping, and a model with the box in it.

Stages (``KangarooHop.stage``): None (plain hopping) → "approach" (up to
four hops whose flights are stretched or shortened to reach a take-off spot)
→ "takeoff" (the stance that launches the jump: stiffer ankle, higher apex)
→ "flight" (leg tucked over the box) → "landing" (the stance after it: extra
ankle damping) → "done" (hopping again, never another jump).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import mujoco

from gaitforge.control.raibert.kangaroo.gains import _q
from gaitforge.constants import GRAVITY as G
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError

if TYPE_CHECKING:
    from gaitforge.control.raibert.kangaroo.gains import KangarooGains


@dataclass(frozen=True)
class JumpPlan:
    """Jump over a box whose near face is at x = ``near_x`` [m], ``depth`` [m]
    long and ``height`` [m] tall. The take-off stance uses an ankle
    ``stiffness_factor`` times stiffer; the landing stance an ankle damping
    ``landing_damping_factor`` times larger; the COM apex clears the box by
    the tucked leg plus ``clearance`` [m]."""

    near_x: float = field(metadata={"quantity": "length"})
    height: float = field(metadata={"quantity": "length"})
    depth: float = _q("length", 0.1)
    clearance: float = _q("length", 0.08)
    takeoff_gap: float = _q("length", 0.3)      # take-off toe at least this far before the box [m]
    landing_gap: float = _q("length", 0.4)      # landing COM this far past the box [m]
    energy_factor: float = _q(None, 1.5)        # Eq. 2 energy × this at take-off (losses)
    speed_kept: float = _q(None, 0.75)          # forward speed kept through the take-off
    takeoff_placement: float = _q(None, 0.5)    # take-off foot at this fraction of Eq. 3
    stiffness_factor: float = _q(None, 1.5)
    landing_damping_factor: float = _q(None, 4.0)


class JumpStages:
    """The jump's decisions, a mixin of ``KangarooHop`` (which owns the state:
    ``jump``, ``stage``, ``stance_avg``, ``apex_target``, ``t_approach``, ...).
    The apex each stance aims at is computed in the compiled tick
    (``kangaroo.kernel.apex_wanted``) from the values planned here."""

    # Owned by KangarooHop (attributes, or state-array slots there).
    jump: JumpPlan | None
    g: KangarooGains
    stance_avg: float
    apex_target: float | None
    t_approach: float
    last_approach: bool
    stage: str | None


    def _plan_jump(self, toe_x: float, vx: float, com_z: float) -> None:
        """At a touchdown before the box. Up to four strides early
        ("approach") flights are lengthened or shortened so that a touchdown
        lands ``takeoff_gap`` plus 40 % of a stride before the near face; that
        stance is the take-off. Its flight must carry the COM from liftoff
        (half a stance sweep ahead of the toe) to ``landing_gap`` past the far
        face with the tucked toe above the box: the higher apex wins."""
        jp, g = self.jump, self.g
        assert jp is not None  # planned only with a jump
        ahead, vx = jp.near_x - toe_x, max(vx, 0.1)
        stride = vx * (self.stance_avg + g.flight_time)
        if 0.0 < ahead <= jp.takeoff_gap + 0.8 * stride:  # (too close is still better jumped)
            # The take-off stance brakes the body: plan with the speed it keeps.
            t_fly = (ahead + jp.depth + jp.landing_gap - 0.5 * vx * self.stance_avg) / (jp.speed_kept * vx)
            # Lift-off is about 0.15 leg lengths above touchdown, the landing at touchdown height.
            drop = 0.15 * g.leg_length_td
            over_box = jp.height + 0.65 * g.leg_length_td + jp.clearance
            self.apex_target = max(over_box, com_z + drop + max(0.0, G * t_fly ** 2 / 8.0 - 0.5 * drop))
            self.stage = "takeoff"
        elif jp.takeoff_gap + 0.8 * stride < ahead <= jp.takeoff_gap + 4.0 * stride:
            # Spread the distance to the take-off spot over whole strides.
            to_go = ahead - jp.takeoff_gap - 0.4 * stride
            hops = max(1, round(to_go / stride))
            self.last_approach = hops == 1
            step = to_go / hops
            t_fly = step / vx - self.stance_avg
            self.t_approach = min(max(t_fly, 0.6 * g.flight_time), 1.4 * g.flight_time)
            self.stage = "approach"
        else:
            self.stage = None


def with_obstacle(character: Character, near_x: float, height: float, depth: float = 0.1,
                  width: float = 0.6) -> mujoco.MjModel:
    """A copy of the character's model with a box on the ground: near face at
    x = ``near_x`` [m], ``depth`` long (x), ``height`` tall, ``width`` wide."""
    if character.mjspec is None:
        raise GaitforgeError(f"with_obstacle: {character.name} was not built from a creature spec")
    spec = character.mjspec.copy()
    box = spec.worldbody.add_geom(name="obstacle", type=mujoco.mjtGeom.mjGEOM_BOX,
                                  size=[depth / 2, width / 2, height / 2], pos=[near_x + depth / 2, 0.0, height / 2])
    ground = character.model.geom("ground")
    box.contype, box.conaffinity = int(ground.contype[0]), int(ground.conaffinity[0])
    for pair in list(spec.pairs):  # a creature colliding by pairs meets the box the same way
        if pair.geomname1 == "ground":
            twin = spec.add_pair(geomname1="obstacle", geomname2=pair.geomname2, condim=pair.condim)
            twin.friction = pair.friction
    box.rgba = [0.75, 0.45, 0.25, 1.0]
    return spec.compile()
