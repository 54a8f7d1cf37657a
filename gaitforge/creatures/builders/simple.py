"""The two simple creatures of Kry et al. 2009, Fig. 2: a closed ring of
identical links and an open chain (a worm), both with uniform joint stiffness
1 N m/rad and hinge axes along y so that they bend in the sagittal plane.

Both have 16 links: the worm has 6 + 15 = 21 DOFs (the paper's count); the
ring's 16 hinges (15 in the tree plus the closing one) leave 6 + 13 = 19 DOFs
once the closure removes what a planar loop can no longer do (the paper's 19).
"""
from __future__ import annotations

import math

from gaitforge.creatures.builders.kit import box, capsule, quat_axis_angle
from gaitforge.creatures.spec import Bone, Constraint, CouplingSpring, CreatureSpec, Joint

N_LINKS = 16
STIFFNESS = 1.0  # N m/rad, Kry09 Fig. 3
DAMPING = 0.002  # N m s/rad


def loop_creature(n: int = N_LINKS, link_length: float = 0.05, width: float = 0.08,
                  thickness: float = 0.01, density: float = 250.0) -> CreatureSpec:
    """A ring of ``n`` box links standing upright in the x-z plane.

    Link 0 lies on the ground; each next link turns 2π/n about +y at the end of
    the previous one. The last link's end is tied back to link 0 by a hinge
    closure (simulated as two ball sockets); its spring is a coupling spring on
    the sum of the tree hinges, which for a planar ring is exactly minus the
    closing hinge's angle. Light foam-like links (``density`` kg/m³) keep the
    ring round under gravity with 1 N m/rad joints.
    """
    turn = quat_axis_angle((0, 1, 0), -2.0 * math.pi / n)  # +x toward +z
    link = box((link_length / 2, width / 2, thickness / 2), pos=(link_length / 2, 0, 0))
    bones = [Bone("link0", None, (link,), Joint("free"), pos=(-link_length / 2, 0, 0),
                  density=density, role="trunk")]
    for i in range(1, n):
        bones.append(Bone(f"link{i}", f"link{i - 1}", (link,),
                          Joint("hinge", axis=(0, 1, 0), stiffness=STIFFNESS, damping=DAMPING),
                          pos=(link_length, 0, 0), quat=turn, density=density, role="trunk"))
    hinges = tuple((f"link{i}", 1.0) for i in range(1, n))
    return CreatureSpec(
        name="loop",
        description="Closed ring of 16 identical links, 1 N m/rad hinges (Kry09 Fig. 2, top)",
        bones=tuple(bones),
        constraints=(Constraint("closure", "loop", f"link{n - 1}", other="link0",
                                point=(link_length, 0, 0), axis=(0, 1, 0), simulate=True),),
        springs=(CouplingSpring("closure_spring", hinges, STIFFNESS, 0.0),),
    )


def worm(n: int = N_LINKS, link_length: float = 0.05, radius: float = 0.012) -> CreatureSpec:
    """An open chain of ``n`` capsule links lying along +x, hinges about y."""
    link = capsule((0, 0, 0), (link_length, 0, 0), radius)
    bones = [Bone("link0", None, (link,), Joint("free"), role="head")]
    for i in range(1, n):
        bones.append(Bone(f"link{i}", f"link{i - 1}", (link,),
                          Joint("hinge", axis=(0, 1, 0), stiffness=STIFFNESS, damping=DAMPING),
                          pos=(link_length, 0, 0), role="tail" if i == n - 1 else "trunk"))
    return CreatureSpec(
        name="worm",
        description="Open chain of 16 identical links, 1 N m/rad hinges (Kry09 Fig. 2, bottom)",
        bones=tuple(bones),
    )
