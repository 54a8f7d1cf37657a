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
_FLIGHT, _LOADING, _COMPRESSION, _THRUST, _UNLOADING = (  # (``Phase.X`` is a slow lookup in Python 3.11)
    Phase.FLIGHT, Phase.LOADING, Phase.COMPRESSION, Phase.THRUST, Phase.UNLOADING)
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
        f0, f1 = self.fsms
        return f"{self.gait}:{_LABELS[f0.phase is not _FLIGHT, f1.phase is not _FLIGHT]}"

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
        g, touch, fsms = self.gains, self.touch, self.fsms
        for i in (TRAIL, LEAD):
            fsm = fsms[i]
            before = fsm.phase
            if before is _FLIGHT:
                if not touch[i]:
                    continue  # nothing can happen to a leg in the air (saves the update)
                phase = fsm.update(self.t, True, 0.0, 0.0, 0.0)  # to LOADING (lengths unused)
            else:
                leg, rest = self.legs[i], self.rest[i]
                x = self.q[leg.slide_q]
                touching = touch[i] or rest - x > 0.005  # self.loaded(i), inlined
                phase = fsm.update(self.t, touching, LEG_LENGTH + x, self.v[leg.slide_d], LEG_LENGTH + rest)
            if phase is before:
                continue
            leg = self.legs[i]
            if phase is _LOADING:
                self._touchdown(i)
            elif phase is _THRUST and self.goal[i] != g.short:
                self.thrust(leg, g.gallop_share if i == TRAIL and not self.done[LEAD] else 1.0)
                if i == LEAD and self.fsms[TRAIL].phase.in_stance:
                    # Hand over: the trailing leg unloads as the leading leg
                    # starts its thrust, so the support ends with a single
                    # support on the leading leg.
                    self.set_length(self.legs[TRAIL], g.short)
                    self.zero_hip(self.legs[TRAIL])
            elif phase is _UNLOADING:
                self.set_length(leg, g.short)
                self.zero_hip(leg)
            elif phase is _FLIGHT:
                self._liftoff(i)
        p0, p1 = fsms[TRAIL].phase, fsms[LEAD].phase
        if p0 is _FLIGHT and p1 is _FLIGHT:  # (most ticks) no posture servo
            self._swing(p0, p1)
            return
        short, goal = g.short, self.goal
        s0 = (p0 is _COMPRESSION or p0 is _THRUST) and goal[TRAIL] != short
        s1 = (p1 is _COMPRESSION or p1 is _THRUST) and goal[LEAD] != short
        if s0 or s1:
            legs = self.legs
            self.posture((legs[TRAIL], legs[LEAD]) if s0 and s1 else ((legs[TRAIL],) if s0 else (legs[LEAD],)))
        self._swing(p0, p1)

    def _swing(self, p0: Phase, p1: Phase) -> None:
        """Place and lengthen the legs that are in the air (phases p0, p1 of
        the trailing and leading legs), by style and role."""
        if p0 is not _FLIGHT and p1 is not _FLIGHT:
            return
        g, alternate, down = self.gains, self.style == "alternate", self.trail_down
        place = []
        for i, ph in ((TRAIL, p0), (LEAD, p1)):
            if ph is not _FLIGHT:
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
            timer = self.timers[i]
            last = timer.last_stance  # timer.predicted_stance, inlined
            miss = self.aim_foot(self.legs[i], com, vel, timer.default if last is None else last, land)
            if extend is None:
                continue
            if i == TRAIL:
                extend, late = extend or vel[2] < 0.0, vel[2] < -1.5
            else:
                late = extend and self.t > down + 0.15
            # Lengthen once the swing has (nearly) arrived, so the foot does
            # not land on the way; a late leg goes down regardless.
            self.goal[i] = g.landing if extend and (miss < 0.1 or late) else g.short  # set_length
