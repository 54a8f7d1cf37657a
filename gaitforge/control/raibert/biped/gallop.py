"""Biped galloping (RH91 §4, Gaits): the two legs share one support period —
single support on the trailing (left) leg, double support, single support
on the leading (right) leg — followed by a flight; the footfalls are
separated in time and space.

Each leg runs its own phase machine (LOADING, COMPRESSION, THRUST,
UNLOADING as in the run) for its part of the shared support and lands at
its own Eq. 3 point relative to the centre of mass at its touchdown
(neutral point from that leg's last stance duration plus the speed
correction). A stance hip servoes posture (Eq. 4) in COMPRESSION and
THRUST, the servo shared between the hips in double support. Each leg
injects energy at its own thrust (Eq. 2, counting the strain of both
springs): the trailing leg ``gains.gallop_share`` of the deficit, the
leading leg what is then left. Sequencing:

- the trailing leg is lengthened for landing once the body descends; the
  leading leg stays short until the trailing foot is down (and
  ``gallop_lag`` has passed), then lengthens once its swing has nearly
  arrived, and lands later: single, then double support;
- when the leading leg starts its thrust the trailing leg unloads (shortens,
  zero hip torque), so the support ends on the leading leg alone.

Two styles of swinging the legs forward (RH91 describes both):

- ``together``: both legs swing forward together during the flight, like the
  front half of a galloping horse; a leg that lifts off while the other is
  still down is held where it left the ground until the flight;
- ``alternate``: each leg swings forward during the other leg's single
  support — the leading leg while the trailing leg alone carries the body,
  the trailing leg while the leading leg does — as in a human gallop. The
  stance leg's ground contact takes up the swing's reaction, so the trunk
  pitches less (measured: about half, see the tests).

Legs swing short: less inertia about the hip, less trunk pitching.

The control law runs compiled (``biped.kernel.gallop_body``); this module
holds the controller object.
"""
from __future__ import annotations


from gaitforge.control.raibert.biped import kernel as K
from gaitforge.control.raibert.biped import tick as biped_tick
from gaitforge.control.raibert.biped.base import BipedBase
from gaitforge.control.raibert.biped.run import Support
from gaitforge.control.raibert.fsm import PhaseMachine, StanceTimer

TRAIL, LEAD = 0, 1  # roles; the left leg trails, the right leg leads
_LABELS = {(False, False): "flight", (True, False): "trail", (True, True): "double", (False, True): "lead"}


class BipedGallop(Support, BipedBase):
    """The galloping controller; build it with ``biped.make_controller``."""

    _next_stage = (K.LEG1, K.ACT)

    def __init__(self, *args, style: str = "together", **kwargs):
        super().__init__(*args, **kwargs)
        self.style = style
        self.gait = f"gallop_{style}"
        self.kstate[K.GALLOP], self.kstate[K.ALTERNATE] = 1.0, style == "alternate"

    def reset(self, model, data) -> None:
        eps = self.gains.compress_eps
        self._machines = (PhaseMachine(compress_eps=eps), PhaseMachine(compress_eps=eps))
        self._timers = (StanceTimer(default=self.gains.stance_default),
                        StanceTimer(default=self.gains.stance_default))
        super().reset(model, data)
        self._start(K.SENSE)  # the first tick's actions (no slew)

    @property
    def timers(self) -> tuple[StanceTimer, StanceTimer]:
        """The stance timers of the trailing and the leading leg."""
        return self.machines()[1]

    @property
    def state(self) -> str:
        p0, p1 = self.kstate[K.PHASE:K.PHASE + 2].tolist()
        return f"{self.gait}:{_LABELS[p0 != K.FLIGHT, p1 != K.FLIGHT]}"

    def _tick_kernel(self):
        return biped_tick.gallop_tick
