"""The physics a run integrates with, as one record: read back from the
model a controller prepared (``sim.controller.run_settings``), printed by
the commands, and checked when a user replaces the step (``--timestep``).

What a creature or controller family declares lives in its own data (the
creature spec's timestep and contact settings, ``SkillParams``' timestep,
integrator and solver, the RH91 controllers' gains); this record is what
MuJoCo is actually given, so what is printed cannot drift from what runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco

from gaitforge.creatures import spec_checks
from gaitforge.errors import GaitforgeError

TIMESTEP_RANGE = spec_checks.TIMESTEP  # s: steps a user may ask for, as a creature file (finer would run for days)

_INTEGRATORS = {int(v): k.lower() for k, v in (("Euler", mujoco.mjtIntegrator.mjINT_EULER),
                                               ("RK4", mujoco.mjtIntegrator.mjINT_RK4),
                                               ("implicit", mujoco.mjtIntegrator.mjINT_IMPLICIT),
                                               ("implicitfast", mujoco.mjtIntegrator.mjINT_IMPLICITFAST))}
if hasattr(mujoco.mjtIntegrator, "mjINT_DISCRETE"):
    _INTEGRATORS[int(mujoco.mjtIntegrator.mjINT_DISCRETE)] = "discrete"
_SOLVERS = {int(mujoco.mjtSolver.mjSOL_PGS): "PGS", int(mujoco.mjtSolver.mjSOL_CG): "CG",
            int(mujoco.mjtSolver.mjSOL_NEWTON): "Newton"}


@dataclass(frozen=True)
class Physics:
    """timestep [s]; integrator and constraint solver (MuJoCo's names);
    solref (time constant [s], damping ratio) and solimp (d0, d_width,
    width [m], midpoint, power) of the ground contacts; friction: the
    ground's sliding friction coefficient (MuJoCo takes the larger of the
    two geoms' in a contact)."""

    timestep: float
    integrator: str
    solver: str
    solref: tuple[float, float]
    solimp: tuple[float, float, float, float, float]
    friction: float

    @classmethod
    def of(cls, model: mujoco.MjModel) -> "Physics":
        """The physics of a prepared model: its options and the ground's
        contact parameters (its first explicit pair with the ground, else the
        first geom of the world body; MuJoCo's defaults where there is none)."""
        ground = [g for g in range(model.ngeom) if model.geom_bodyid[g] == 0]
        pairs = [p for p in range(model.npair)
                 if 0 in (model.geom_bodyid[model.pair_geom1[p]], model.geom_bodyid[model.pair_geom2[p]])]
        if pairs:  # explicit ground pairs carry their own parameters
            p = pairs[0]
            solref = tuple(float(v) for v in model.pair_solref[p])
            solimp = tuple(float(v) for v in model.pair_solimp[p])
            friction = float(model.pair_friction[p][0])
        elif ground:
            g = ground[0]
            solref = tuple(float(v) for v in model.geom_solref[g])
            solimp = tuple(float(v) for v in model.geom_solimp[g])
            friction = float(model.geom_friction[g][0])
        else:
            solref, solimp, friction = (0.02, 1.0), (0.9, 0.95, 0.001, 0.5, 2.0), 1.0
        if model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_OVERRIDE:
            solref = tuple(float(v) for v in model.opt.o_solref)
            solimp = tuple(float(v) for v in model.opt.o_solimp)
        return cls(float(model.opt.timestep), _INTEGRATORS.get(int(model.opt.integrator), "?"),
                   _SOLVERS.get(int(model.opt.solver), "?"), solref, solimp, friction)  # type: ignore[arg-type]

    def __str__(self) -> str:
        tc, damp = self.solref
        contact = f"contacts {1000 * tc:g} ms, ratio {damp:g}" if tc > 0 else f"contacts k {-tc:g}, b {-damp:g}"
        d0, dwidth, width = self.solimp[:3]
        return (f"physics: {1000 * self.timestep:g} ms {self.integrator}, {self.solver}; {contact}, "
                f"solimp {d0:g}–{dwidth:g}/{1000 * width:g} mm; friction {self.friction:g}")


def check_timestep(timestep: float, control_dt: float) -> int:
    """Physics steps per control tick for a user's ``timestep`` [s]: it must
    be finite, within ``TIMESTEP_RANGE`` and divide ``control_dt`` [s]."""
    lo, hi = TIMESTEP_RANGE
    if not (isinstance(timestep, (int, float)) and math.isfinite(timestep) and lo <= timestep <= hi):
        raise GaitforgeError(f"timestep must be from {lo:g} to {hi:g} s, got {timestep!r}")
    n = control_dt / timestep
    if abs(n - round(n)) > 1e-6 * max(1.0, n):
        raise GaitforgeError(f"timestep {timestep:g} s must divide the control interval {control_dt:g} s")
    return int(round(n))
