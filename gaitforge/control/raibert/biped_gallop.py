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
"""
from __future__ import annotations

from gaitforge.control.raibert.biped import LEG_LENGTH, BipedBase
from gaitforge.control.raibert.biped_run import Support
from gaitforge.control.raibert.fsm import Phase, PhaseMachine, StanceTimer

TRAIL, LEAD = 0, 1  # roles; the left leg trails, the right leg leads
_LABELS = {(False, False): "flight", (True, False): "trail", (True, True): "double", (False, True): "lead"}


class BipedGallop(Support, BipedBase):
    """The galloping controller; build it with ``biped.make_controller``."""

    def __init__(self, *args, style: str = "together", **kwargs):
        super().__init__(*args, **kwargs)
        self.style = style
        self.gait = f"gallop_{style}"

    def reset(self, model, data) -> None:
        self.fsms = (PhaseMachine(compress_eps=0.003), PhaseMachine(compress_eps=0.003))
        self.timers = (StanceTimer(default=self.gains.stance_default),
                       StanceTimer(default=self.gains.stance_default))
        self.done = [False, False]  # leg has had its stance in the current shared support
        self.trail_down = None  # time the trailing foot touched down in this support
        self.in_support = False
        super().reset(model, data)
        self._tick()

    @property
    def state(self) -> str:
        return f"{self.gait}:{_LABELS[tuple(f.phase.in_stance for f in self.fsms)]}"

    # --------------------------------------------------------------- events
    def _touchdown(self, i: int) -> None:
        self.zero_hip(self.legs[i])
        self.timers[i].touchdown(self.t)
        if i == TRAIL:
            self.trail_down = self.t
        if not self.in_support:  # the first foot down opens the shared support
            self.in_support = True
            self.touchdown_update(self.com_state()[0], None)

    def _liftoff(self, i: int) -> None:
        leg = self.legs[i]
        self.done[i] = True
        self.timers[i].liftoff(self.t)
        self.swing_hip(leg)
        self.set_length(leg, self.gains.short)
        self.aim_hip(leg, self.q[leg.hip_q:leg.hip_q + 4])  # hold it where it left the ground
        if not self.fsms[1 - i].phase.in_stance:  # nobody on the ground: flight
            if self.done[1 - i]:  # both legs had their stance: the shared support is over
                self.done = [False, False]
                self.trail_down = None
            self.in_support = False
            self.liftoff_update(None)

    # ----------------------------------------------------------------- tick
    def _tick(self) -> None:
        g = self.gains
        for i, (leg, fsm) in enumerate(zip(self.legs, self.fsms)):
            before = fsm.phase
            if before is Phase.FLIGHT and not self.touch[i]:
                continue  # nothing can happen to a leg in the air (saves the update)
            ell, rate, rest = self.length(leg)
            touching = self.loaded(i) if before.in_stance else self.touch[i]
            phase = fsm.update(self.t, touching, ell, rate, rest)
            if phase is before:
                continue
            if phase is Phase.LOADING:
                self._touchdown(i)
            elif phase is Phase.THRUST and self.goal[i] != g.short:
                self.thrust(leg, g.gallop_share if i == TRAIL and not self.done[LEAD] else 1.0)
                if i == LEAD and self.fsms[TRAIL].phase.in_stance:
                    # Hand over: the trailing leg unloads as the leading leg
                    # starts its thrust, so the support ends with a single
                    # support on the leading leg.
                    self.set_length(self.legs[TRAIL], g.short)
                    self.zero_hip(self.legs[TRAIL])
            elif phase is Phase.UNLOADING:
                self.set_length(leg, g.short)
                self.zero_hip(leg)
            elif phase is Phase.FLIGHT:
                self._liftoff(i)
        servo = ()
        for i in (TRAIL, LEAD):
            ph = self.fsms[i].phase
            if (ph is Phase.COMPRESSION or ph is Phase.THRUST) and self.goal[i] != g.short:
                servo += (self.legs[i],)
        if servo:
            self.posture(servo)
        self._swing()

    def _swing(self) -> None:
        """Place and lengthen the legs that are in the air, by style and role."""
        g, alternate, down = self.gains, self.style == "alternate", self.trail_down
        place = []
        for i in (TRAIL, LEAD):
            if self.fsms[i].phase is not Phase.FLIGHT:
                continue
            if self.done[i]:
                # Lifted off while the other leg is still down: the alternate
                # style swings the trailing leg forward now (short); otherwise
                # the leg is held.
                if alternate and i == TRAIL:
                    place.append((i, None))
            elif i == TRAIL:
                place.append((i, down is not None))
            elif down is not None or not alternate:  # alternate: the leading leg waits for the trailing foot
                place.append((i, down is not None and self.t >= down + g.gallop_lag))
        if not place:
            return
        com, vel = self.com_state() if self.in_support else self.flight_com()
        land = LEG_LENGTH + g.landing
        for i, extend in place:
            miss = self.place_foot(self.legs[i], *self.neutral_target(com, vel, self.timers[i].predicted_stance), land)
            if extend is None:
                continue
            if i == TRAIL:
                extend, late = extend or vel[2] < 0.0, vel[2] < -1.5
            else:
                late = extend and self.t > down + 0.15
            # Lengthen once the swing has (nearly) arrived, so the foot does
            # not land on the way; a late leg goes down regardless.
            self.set_length(self.legs[i], g.landing if extend and (miss < 0.1 or late) else g.short)
