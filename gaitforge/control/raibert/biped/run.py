"""Biped running (RH91 §4, Fig. 4): one leg at a time, like a one-legged
hopper with an extra idle leg.

The state machine follows the *active* leg through FLIGHT, LOADING,
COMPRESSION, THRUST and UNLOADING; at its liftoff the legs trade roles.

- FLIGHT: the active leg is lengthened for landing and swung by its hip
  servo so the foot lands at the Eq. 3 point (neutral point from the last
  stance duration plus the speed correction, in x and y); the idle leg is
  short.
- LOADING: zero torque at the active hip.
- COMPRESSION, THRUST: the active hip servoes roll, pitch and yaw (Eq. 4);
  at the start of THRUST the leg's rest length is raised by what Eq. 2 says
  the hop needs.
- UNLOADING: the active leg is shortened, zero hip torque.

Throughout, the idle leg is kept short and its hip servo mirrors the active
leg (fore-aft and sideways), so the two legs' reaction torques on the trunk
cancel and the idle leg arrives in front of the body, ready to land.

The control law runs compiled (``biped.kernel.run_body``); this module
holds the controller object and the stance leg's documented actions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gaitforge.control.raibert.biped import kernel as K
from gaitforge.control.raibert.biped import servo as biped_servo
from gaitforge.control.raibert.biped import tick as biped_tick
from gaitforge.control.raibert.biped.base import PHASES, BipedBase
from gaitforge.control.raibert.fsm import PhaseMachine, StanceTimer


class Support:
    """What a stance leg does, shared by the run and the gallops (a mixin for
    :class:`BipedBase`): the posture servo (Eq. 4) and the thrust (Eqs.
    1–2), which the kernels run every tick and at the start of THRUST. At
    each touchdown the kernel also learns (``biped.kernel.learn``):

    - the hop loss: a share ``loss_gain`` of the energy the last apex missed
      is added to what each thrust injects;
    - a speed trim: Eq. 3 alone leaves an error proportional to speed (20 %
      slow measured with k_x = 0.08 s; RH91 report 0.2-0.3 m/s), as its
      neutral point is not exact for a leg that thrusts and shortens in
      stance, and a gallop (left leg first) drifts sideways. It is learned
      from the mean velocity since the last touchdown, in the heading frame,
      only while the desired velocity is steady (not in turns);
    - the roll lead (run; a choice of φ_d in Eq. 4): each support aims at
      minus a share ``roll_lead`` of the roll the flight after the last such
      support had, so the trunk rolls about level instead of landing tilted.
    """

    # Bound by BipedBase (reset, _bind).
    kstate: np.ndarray
    spring: np.ndarray
    stiff: np.ndarray
    damp: np.ndarray
    qfrc: np.ndarray
    _qpos: np.ndarray
    _qvel: np.ndarray
    _gxpos: np.ndarray
    _com: np.ndarray
    _comvel: np.ndarray

    if TYPE_CHECKING:
        def com_state(self) -> tuple[list[float], list[float]]: ...  # BipedBase's

    def posture(self, legs: tuple) -> None:
        """Eq. 4 (roll, pitch, yaw) through the stance hips, every tick.

        The servo is each stance hip's spring-damper with its set point at the
        hip rotation that would keep the leg where it is and put the trunk at
        the desired attitude q_d: q_sp = q_d⁻¹ ⊗ q_trunk ⊗ q_hip. The torque
        on the trunk is then k_p × (attitude error) and k_v × (trunk rate),
        applied by MuJoCo at every physics step (implicit damping), so the
        gains are not bound by the control interval. The yaw error is scaled
        by kp_yaw / kp_posture (the spring is isotropic). The gains are shared
        by the stance legs and fade with each leg's load (a lightly loaded
        foot slides). Generalized forces added (explicit, slowly varying):
        (k_v + k_p dt / 2) ω_leg cancels the damping and set-point lag due to
        the leg sweeping under the body, and each leg cancels the moment of
        its own spring force about the mass centre — the force acts through a
        hip 0.072 m to the side of it, tens of N m of roll otherwise left to
        the servo's error (a feedforward added to RH91's servo)."""
        use = [any(leg.index == i for leg in legs) for i in (0, 1)]
        biped_servo.posture(self._qpos, self._qvel, self._com, self.spring, self.stiff, self.damp, self.qfrc,
                  self.kstate, *use)

    def thrust(self, leg, share: float = 1.0) -> float:
        """Raise the leg's rest length (a step: the energy injection) to make
        up ``share`` of what the hop still needs (Eqs. 1–2); returns it [m].
        Eq. 2's apex counts the strain of every loaded leg spring less what
        its damper will take on the way out (≈ b c² ω π / 4 over a quarter
        oscillation), the elevation and the vertical kinetic energy; the
        learned loss is added to the deficit."""
        self.com_state()  # the kernel reads the velocity just measured
        return K.thrust(leg.index, float(share), self._qpos, self._gxpos, self._com, self._comvel, self.spring,
                        self.kstate)


class BipedRun(Support, BipedBase):
    """The running controller; build it with ``biped.make_controller``."""

    gait = "run"

    def reset(self, model, data) -> None:
        self._machines = (PhaseMachine(compress_eps=self.gains.compress_eps),)
        self._timers = (StanceTimer(default=self.gains.stance_default),)
        super().reset(model, data)
        self._start(K.ACT)  # aim the first landing

    @property
    def fsm(self) -> PhaseMachine:
        """The phase machine of Fig. 4 (following the active leg)."""
        return self.machines()[0][0]

    @property
    def timer(self) -> StanceTimer:
        """The stance timer (one for both legs)."""
        return self.machines()[1][0]

    @property
    def active(self) -> int:
        """The leg (index) whose phases the machine follows."""
        return int(self.kstate[K.ACTIVE])

    @property
    def state(self) -> str:
        active, phase = self.kstate[[K.ACTIVE, K.PHASE]].tolist()
        return f"run:{self.legs[int(active)].side}:{PHASES[int(phase)].value}"

    def _tick_kernel(self):
        return biped_tick.run_tick
