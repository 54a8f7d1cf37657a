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
"""
from __future__ import annotations

import math

from gaitforge.control.raibert.biped import CONTROL_DT, LEG_LENGTH, BipedBase, qmul
from gaitforge.control.raibert.fsm import Phase, PhaseMachine, StanceTimer
from gaitforge.control.raibert.toolbox import G, hop_height

# Enum members as module constants (``Phase.X`` is a slow lookup in Python 3.11).
_FLIGHT, _LOADING, _COMPRESSION, _THRUST, _UNLOADING = (
    Phase.FLIGHT, Phase.LOADING, Phase.COMPRESSION, Phase.THRUST, Phase.UNLOADING)


class Support:
    """What a stance leg does, shared by the run and the gallops (a mixin for
    :class:`BipedBase`): the posture servo (Eq. 4), the thrust (Eqs. 1–2),
    and what is learned at each touchdown and liftoff."""

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
        g, v, q, R = self.gains, self.v, self.q, self.R
        yaw = math.atan2(R[3], R[0])
        err = (self.yaw_d - yaw + math.pi) % (2 * math.pi) - math.pi  # wrap(), inlined
        half = 0.5 * (yaw + max(-0.5, min(0.5, err)) * g.kp_yaw / g.kp_posture)
        ch, sh, (tw, tx, ty, tz) = math.cos(half), math.sin(half), q[3:7]
        e = (ch * tw + sh * tz, ch * tx + sh * ty, ch * ty - sh * tx, ch * tz - sh * tw)  # Rz(yaw_sp)⁻¹ ⊗ q_trunk
        if self.roll_d:
            e = qmul((math.cos(self.roll_d / 2), -math.sin(self.roll_d / 2), 0.0, 0.0), e)
        ew, ex, ey, ez = e
        c = self._com[0].tolist()
        cx, cy, cz = c[0] - q[0], c[1] - q[1], c[2] - q[2]
        mx, my, mz = (R[0] * cx + R[3] * cy + R[6] * cz, R[1] * cx + R[4] * cy + R[7] * cz,
                      R[2] * cx + R[5] * cy + R[8] * cz)  # mass centre in the trunk frame
        wx, wy, wz = v[3:6]  # trunk angular velocity, trunk frame
        n, f_ref, half_dt = len(legs), 0.5 * self.mass * G, 0.5 * CONTROL_DT
        spring, qfrc, damp = self.spring, self.qfrc, self.damp
        for leg in legs:
            d, i, s = leg.hip_d, leg.hip_q, leg.slide_q
            f = self.k_leg * (self.rest[leg.index] - q[s]) - self.b_leg * v[leg.slide_d]  # Eq. 1 [N]
            w = max(0.0, min(1.0, f / f_ref)) / n
            kp, kv, kt = g.kp_posture * w, g.kv_posture * w, g.kv_yaw * w
            self.stiff[leg.hip_jnt] = kp
            damp[d], damp[d + 1], damp[d + 2] = kv, kv, kt
            hw, hx, hy, hz = q[i:i + 4]
            spring[i], spring[i + 1], spring[i + 2], spring[i + 3] = (
                ew * hw - ex * hx - ey * hy - ez * hz, ew * hx + ex * hw + ey * hz - ez * hy,
                ew * hy - ex * hz + ey * hw + ez * hx, ew * hz + ex * hy - ey * hx + ez * hw)
            # quat_to_mat(hw, hx, hy, hz), inlined
            H0, H1, H2 = 1 - 2 * (hy * hy + hz * hz), 2 * (hx * hy - hw * hz), 2 * (hx * hz + hw * hy)
            H3, H4, H5 = 2 * (hx * hy + hw * hz), 1 - 2 * (hx * hx + hz * hz), 2 * (hy * hz - hw * hx)
            H6, H7, H8 = 2 * (hx * hz - hw * hy), 2 * (hy * hz + hw * hx), 1 - 2 * (hx * hx + hy * hy)
            ux, uy, uz = -H2 * f, -H5 * f, -H8 * f  # along the leg to the foot, times the force
            rx, ry, rz = -mx, leg.hip_y - my, -mz  # hip relative to the mass centre
            fx, fy, fz = ry * uz - rz * uy, rz * ux - rx * uz, rx * uy - ry * ux
            lag, lag_t = kv + kp * half_dt, kt + kp * half_dt
            qfrc[d] = lag * (v[d] + H0 * wx + H3 * wy + H6 * wz) - (H0 * fx + H3 * fy + H6 * fz)
            qfrc[d + 1] = lag * (v[d + 1] + H1 * wx + H4 * wy + H7 * wz) - (H1 * fx + H4 * fy + H7 * fz)
            qfrc[d + 2] = lag_t * (v[d + 2] + H2 * wx + H5 * wy + H8 * wz) - (H2 * fx + H5 * fy + H8 * fz)

    def thrust(self, leg, share: float = 1.0) -> float:
        """Raise the leg's rest length (a step: the energy injection) to make
        up ``share`` of what the hop still needs (Eqs. 1–2); returns it [m].
        Eq. 2's apex counts the strain of every loaded leg spring less what
        its damper will take on the way out (≈ b c² ω π / 4 over a quarter
        oscillation), the elevation and the vertical kinetic energy; the
        learned loss is added to the deficit."""
        com, vel = self.com_state()
        M, k = self.mass, self.k_leg
        omega, strain, c = math.sqrt(k / M), 0.0, 0.0
        for other in self.legs:
            if other is leg or self.touch[other.index]:
                co = max(self.rest[other.index] - self.q[other.slide_q], 0.0)
                strain += 0.5 * k * co * co - self.b_leg * co * co * omega * math.pi / 4
                c = co if other is leg else c
        need = share * (M * G * (self.gains.apex - hop_height(strain, com[2], 0.5 * M * vel[2] ** 2, M)) + self.loss)
        delta = min(math.sqrt(c * c + 2.0 * max(need, 0.0) / k) - c, self.gains.thrust_max)
        self._write_rest(leg.index, self.rest[leg.index] + delta)
        self.goal[leg.index] = self.rest[leg.index]
        return delta

    def touchdown_update(self, com: list[float], kind: int | None) -> None:
        """At the start of a support: learn the hop loss from the last apex,
        the speed trim from the last step, the roll drift of the last flight
        (for support ``kind``; None: skip), and steer along the path."""
        g, M = self.gains, self.mass
        if math.isfinite(self.apex_z):
            self.loss = max(0.0, self.loss + g.loss_gain * M * G * (g.apex - self.apex_z))
        self.apex_z = -math.inf
        # Speed trim: Eq. 3 alone leaves an error proportional to speed (20 %
        # slow measured with k_x = 0.08 s; RH91 report 0.2-0.3 m/s), as its
        # neutral point is not exact for a leg that thrusts and shortens in
        # stance, and a gallop (left leg first) drifts sideways. Learned from
        # the mean velocity since the last touchdown, in the heading frame,
        # only while the desired velocity is steady (not in turns).
        last, self._last_td = self._last_td, (self.t, com[0], com[1], self.vd)
        if last is not None and self.t > last[0] and \
                abs(last[3][0] - self.vd[0]) + abs(last[3][1] - self.vd[1]) < 0.15 * max(self.speed, 0.1):
            ex = self.vd[0] - (com[0] - last[1]) / (self.t - last[0])
            ey = self.vd[1] - (com[1] - last[2]) / (self.t - last[0])
            c, s, k, lim = math.cos(self.yaw_d), math.sin(self.yaw_d), g.trim_gain, g.trim_max
            self.trim = (max(-lim, min(lim, self.trim[0] + k * (c * ex + s * ey))),
                         max(-lim, min(lim, self.trim[1] + k * (c * ey - s * ex))))
        # Roll lead (a choice of φ_d in Eq. 4): aim this support at minus a
        # share of the roll the flight after the last such support had, so the
        # trunk rolls about level instead of landing tilted.
        if kind is not None:
            if self._lo is not None:
                k, r0 = self._lo
                self.drift[k] = 0.5 * (self.drift.get(k, self.roll - r0) + self.roll - r0)
            self.roll_d = max(-0.2, min(0.2, -g.roll_lead * self.drift.get(kind, 0.0)))
        self.steer(com)

    def liftoff_update(self, kind: int | None) -> None:
        """At the end of a support: note the roll; the next flight starts."""
        self._lo = None if kind is None else (kind, self.roll)
        self._vel = None
        self.steer(self._com[0].tolist())



class BipedRun(Support, BipedBase):
    """The running controller; build it with ``biped.make_controller``."""

    gait = "run"

    def reset(self, model, data) -> None:
        self.fsm = PhaseMachine(compress_eps=0.003)
        self.timer = StanceTimer(default=self.gains.stance_default)
        self.active = 0
        super().reset(model, data)
        self._flight()

    @property
    def state(self) -> str:
        return f"run:{self.legs[self.active].side}:{self.fsm.phase.value}"

    def _tick(self) -> None:
        k = self.active
        act, idle = self.legs[k], self.legs[1 - k]
        fsm = self.fsm
        before = fsm.phase
        if before is _FLIGHT:
            phase = fsm.update(self.t, True, 0.0, 0.0, 0.0) if self.touch[k] else before  # (lengths unused)
        else:
            q, rest = self.q, self.rest[k]
            x = q[act.slide_q]
            touching = self.touch[k] or rest - x > 0.005  # self.loaded(k), inlined
            phase = fsm.update(self.t, touching, LEG_LENGTH + x, self.v[act.slide_d], LEG_LENGTH + rest)
        if phase is not before:
            if phase is Phase.LOADING:
                self.timer.touchdown(self.t)
                self.zero_hip(act)
                self.touchdown_update(self.com_state()[0], self.active)
            elif phase is Phase.THRUST:
                self.thrust(act)
            elif phase is Phase.UNLOADING:
                self.set_length(act, self.gains.short)
                self.zero_hip(act)
            elif phase is Phase.FLIGHT:  # the active leg left the ground: exchange legs
                self.timer.liftoff(self.t)
                self.liftoff_update(self.active)
                self.swing_hip(act)
                self.active = 1 - self.active
                act, idle = idle, act
        if phase is _FLIGHT:
            self._flight()
        elif phase is _COMPRESSION or phase is _THRUST:
            self.posture((act,))
        # Idle hip set point: the active hip rotation mirrored in the trunk's
        # sagittal plane (Rx(a) Ry(b) -> Rx(-a) Ry(-b) flips x and y).
        q, i, s = self.q, act.hip_q, self.spring
        j = idle.hip_q
        s[j], s[j + 1], s[j + 2], s[j + 3] = q[i], -q[i + 1], -q[i + 2], q[i + 3]

    def _flight(self) -> None:
        k, g = self.active, self.gains
        act = self.legs[k]
        com, vel = self.flight_com()
        goal = self.goal
        goal[k], goal[1 - k] = g.landing, g.short  # set_length of both legs
        last = self.timer.last_stance  # timer.predicted_stance, inlined
        self.aim_foot(act, com, vel, self.timer.default if last is None else last, LEG_LENGTH + g.landing)
