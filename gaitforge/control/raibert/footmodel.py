"""The ground contact model of Raibert & Hodgins 1991 (§4 "Modeling", Eq. 6),
as an option in place of MuJoCo's contacts for the feet.

One contact point per foot (the character's ``foot`` / ``*_foot`` contact
points) meets the ground plane z = ``ground_z`` through four spring-damper
sets: one vertical, two tangential and one torsional about the normal. At
touchdown the tangential rest position (and the torsional rest heading) is
reset to where the point touched, so a foot never slips (infinite friction);
the friction coefficient that would have sufficed is logged instead. The
vertical spring is linear, or the kangaroo's stiffening paw pad (Eq. 6,
``toolbox.paw_pad_force``). The forces act on the foot body at the contact
point through ``data.xfrc_applied`` (a force at the point equals that force
plus its moment at the body's mass centre), and the foot bodies' own MuJoCo
collisions are switched off on the model copy the runner hands over.

``FootModelController`` wraps any controller: the runner calls it every
physics step (``control_dt`` = the model's timestep) so the stiff pad gets a
fresh force each step, and the wrapped controller runs every ``inner_every``
calls.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import mujoco
import numpy as np

from gaitforge.control.raibert.toolbox import paw_pad_force, required_friction
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import disable_contacts
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import foot_bodies


def _q(quantity: str | None, default):
    return field(default=default, metadata={"quantity": quantity})


@dataclass(frozen=True)
class FootModelParams:
    """Spring and damper constants of one foot's ground contact.

    k_z [N/m], b_z [N s/m]: vertical (k_z unused when the pad is set);
    k_t [N/m], b_t [N s/m]: each tangential axis; k_tors [N m/rad],
    b_tors [N m s/rad]: about the ground normal; pad_k_gz [N], pad_k_r [m]:
    Eq. 6 paw pad stiffness and thickness (None: linear vertical spring);
    ground_z [m]: height of the ground plane."""

    k_z: float = _q("stiffness", 2.0e4)
    b_z: float = _q("damping", 100.0)
    k_t: float = _q("stiffness", 2.0e4)
    b_t: float = _q("damping", 100.0)
    k_tors: float = _q("torsional_stiffness", 5.0)
    b_tors: float = _q("torsional_damping", 0.05)
    pad_k_gz: float | None = _q("force", None)
    pad_k_r: float | None = _q("length", None)
    ground_z: float = _q("length", 0.0)

    def __post_init__(self) -> None:
        if (self.pad_k_gz is None) != (self.pad_k_r is None):
            raise GaitforgeError("foot model: give both pad_k_gz and pad_k_r (Eq. 6) or neither")


#: The kangaroo's paw pad: 1 cm thick, 1.5e4 N/m at first touch, stiffening.
KANGAROO_PAD = FootModelParams(pad_k_gz=150.0, pad_k_r=0.01)


class FootContactModel:
    """Spring-damper ground contact for the feet of ``character``.

    ``feet``: contact-point names (default: those the runner treats as feet).
    After each ``apply``: ``touching`` (F,) bool, ``force`` (F, 3) [N] on
    each foot in world axes, ``torque_z`` (F,) [N m]. With ``record=True``
    every call appends (time, force, torque_z) to the log (see ``history``).
    """

    def __init__(self, character: Character, params: FootModelParams | None = None,
                 feet: tuple[str, ...] | None = None, record: bool = True):
        self.params = params or FootModelParams()
        names = tuple(feet) if feet is not None else tuple(foot_bodies(character))
        unknown = [n for n in names if n not in character.contacts]
        if unknown or not names:
            raise GaitforgeError(f"foot model: unknown contact point(s) {', '.join(unknown) or '(none)'} "
                                 f"in {character.name} (contact points: {', '.join(character.contacts)})")
        m = character.model
        self.feet = names
        self.sites = [character.contacts[n] for n in names]
        self.bodies = [int(m.site_bodyid[s]) for s in self.sites]
        self.record = record
        self.fresh_kinematics = True
        self.reset_state()

    def reset_state(self) -> None:
        n = len(self.feet)
        self.touching = np.zeros(n, bool)
        self.anchor = np.zeros((n, 2))
        self.heading0 = np.zeros(n)
        self.force = np.zeros((n, 3))
        self.torque_z = np.zeros(n)
        self._log: list[tuple[float, np.ndarray, np.ndarray]] = []
        self._vel = np.zeros(6)

    def prepare(self, model: mujoco.MjModel) -> None:
        """Switch off MuJoCo's collisions of the foot bodies' geoms (on the
        model copy being simulated)."""
        disable_contacts(model, [g for g in range(model.ngeom) if int(model.geom_bodyid[g]) in self.bodies])

    def apply(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Compute every foot's contact wrench and write it to ``xfrc_applied``."""
        p = self.params
        if self.fresh_kinematics:  # positions at this step's start, not the last step's
            mujoco.mj_kinematics(model, data)
        for i, (site, body) in enumerate(zip(self.sites, self.bodies)):
            x, y, z = data.site_xpos[site].tolist()
            z -= p.ground_z
            if z >= 0.0:
                self.touching[i] = False
                self.force[i] = 0.0
                self.torque_z[i] = 0.0
                data.xfrc_applied[body] = 0.0
                continue
            R = data.site_xmat[site]
            heading = math.atan2(R[3], R[0])
            if not self.touching[i]:  # touchdown: the tangential and torsional springs rest here
                self.touching[i] = True
                self.anchor[i] = (x, y)
                self.heading0[i] = heading
            mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_SITE, site, self._vel, 0)
            wz, vx, vy, vz = self._vel[2], self._vel[3], self._vel[4], self._vel[5]
            spring = float(paw_pad_force(z, p.pad_k_gz, p.pad_k_r)) if p.pad_k_gz is not None else -p.k_z * z
            fz = max(0.0, spring - p.b_z * vz)
            fx = -p.k_t * (x - self.anchor[i, 0]) - p.b_t * vx
            fy = -p.k_t * (y - self.anchor[i, 1]) - p.b_t * vy
            turn = math.remainder(heading - self.heading0[i], 2.0 * math.pi)
            tz = -p.k_tors * turn - p.b_tors * wz
            c = data.xipos[body]
            rx, ry, rz = x - c[0], y - c[1], z + p.ground_z - c[2]
            data.xfrc_applied[body] = (fx, fy, fz, ry * fz - rz * fy, rz * fx - rx * fz, rx * fy - ry * fx + tz)
            self.force[i] = (fx, fy, fz)
            self.torque_z[i] = tz
        if self.record:
            self._log.append((float(data.time), self.force.copy(), self.torque_z.copy()))

    def history(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Logged times (N,) [s], forces (N, F, 3) [N], torsional torques (N, F) [N m]."""
        if not self._log:
            return np.zeros(0), np.zeros((0, len(self.feet), 3)), np.zeros((0, len(self.feet)))
        t, f, tz = zip(*self._log)
        return np.array(t), np.array(f), np.array(tz)

    def sampled(self, times: np.ndarray) -> np.ndarray:
        """Logged forces (T, F, 3) [N] at ``times`` (T,) [s] (the last value
        logged at or before each time; zero before the first), e.g. a
        Rollout's frame times for ``kangaroo.fig6_data(vertical_force=...)``."""
        t, f, _ = self.history()
        idx = np.searchsorted(t, np.asarray(times) + 1e-12, side="right") - 1
        out = np.zeros((len(idx), len(self.feet), 3))
        ok = idx >= 0
        out[ok] = f[idx[ok]]
        return out

    def friction_needed(self) -> np.ndarray:
        """(N, F) friction coefficient |f_t| / f_n that would have prevented
        slipping at each logged instant (NaN where a foot carries < 1 N)."""
        _, f, _ = self.history()
        return required_friction(f[..., :2], f[..., 2])


class FootModelController:
    """Runs ``inner`` on ``foot_model``'s ground contact. Give the runner
    ``control_dt`` = the model's timestep: the contact forces are then updated
    every physics step and ``inner`` runs every ``inner_every`` steps."""

    def __init__(self, inner, foot_model: FootContactModel, inner_every: int = 1):
        if inner_every < 1:
            raise GaitforgeError(f"foot model: inner_every must be at least 1, got {inner_every}")
        self.inner, self.foot_model, self.inner_every = inner, foot_model, int(inner_every)
        self._count = 0

    @property
    def state(self) -> str:
        return self.inner.state

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.foot_model.reset_state()
        self.foot_model.prepare(model)
        self.inner.reset(model, data)
        self._count = 0

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.foot_model.apply(model, data)
        if self._count % self.inner_every == 0:
            self.inner.compute(model, data)
        self._count += 1


def hop_on_foot_model(character: Character, speed: float, params: FootModelParams = KANGAROO_PAD,
                      timestep: float = 0.0005, **options):
    """The kangaroo hop on the paw-pad ground model, ready for ``runner.run``.

    Returns (controller, foot_model, model, control_dt): pass ``model=`` and
    ``control_dt=`` to the runner. The physics step defaults to 0.5 ms (RH91
    integrated at 0.4 ms): forces held for 2 ms or longer let the stiffening
    pad blow up (see benchmarks/bench_raibert_kangaroo.py)."""
    from gaitforge.control.raibert.kangaroo import make_controller

    foot_model = FootContactModel(character, params, feet=("foot",))
    inner = make_controller(character, "hop", speed, timestep=timestep,
                            touch_sensor=lambda data: bool(foot_model.touching[0]), **options)
    every = int(round(inner.g.control_dt / timestep))
    if abs(every * timestep - inner.g.control_dt) > 1e-12:
        raise GaitforgeError(f"foot model: control_dt {inner.g.control_dt} s is not a multiple of {timestep} s")
    model = copy.copy(character.model)
    model.opt.timestep = timestep
    return FootModelController(inner, foot_model, every), foot_model, model, timestep
