"""Step-level logic of the RH91 quadruped controller (see
:mod:`gaitforge.control.raibert.quadruped`): what happens at touchdown and
liftoff, the schedule and path commands, the hip servo modes, and the
placement of the landing legs (RH91 Eq. 3).

:class:`LegEvents` is a mixin of :class:`~gaitforge.control.raibert.quadruped.QuadrupedRunner`;
it owns no state of its own. Leg indices: 0 front-left, 1 front-right,
2 rear-left, 3 rear-right. Leg rest lengths are in metres from the full
(relaxed) length ``LEG_LENGTH``; hip angles are the gimbal's roll ``rx`` and
pitch ``ry`` [rad].
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.control.raibert.fsm import Phase, StanceTimer
from gaitforge.control.raibert.quadruped_gains import LEG_LENGTH
from gaitforge.control.raibert.virtual_legs import GAITS, torque_allocation

G = 9.81  # m/s²


class LegEvents:
    """Event handlers and leg helpers of the quadruped runner."""

    def _set_gait(self, gait: str, speed: float) -> None:
        self.gait, self.speed = gait, speed
        self.pattern = GAITS[gait]
        self.pairs = self.pattern.pairs
        self.g = g = self.gains[gait]
        self._gain_tuple = (g.roll_kp, g.roll_kv, g.pitch_kp, g.pitch_kv, g.yaw_kp, g.yaw_kv)
        self._leg_step = g.leg_rate * self.control_dt
        # Mean hip offsets of each pair (trunk axes): their height is the pair's hop height.
        self._pair_hip = [tuple(float(np.mean([self.hip_xy[i][k] for i in p])) for k in (0, 1))
                          for p in self.pairs]

    def _set_mode(self, model: mujoco.MjModel, leg: int, stance: bool) -> None:
        """Hip servo gains of one leg: swing (position servo) or stance (limp,
        torque from Eq. 4 only). A leg that lands keeps the rest length it has:
        lengthening it further on the ground would pump energy into the hop."""
        self.stance[leg] = stance
        if stance:
            self.rest[leg] = self.rest_out[leg]
        g = self.g
        kp, kv = (0.0, g.stance_kv) if stance else (g.swing_kp, g.swing_kv)
        for j in self.hip_j[leg]:
            self._stiffness[j, 0] = kp
        d = self.hip_d[leg]
        model.dof_damping[d:d + 2] = kv
        f0, f1 = self._qf_hip[leg]
        self._qf_buf[f0] = self._qf_buf[f1] = 0.0

    def _allocate(self, q: list[float], legs: tuple[int, ...]) -> None:
        """Stance torque allocation over ``legs`` (two rows per leg: rx, ry)."""
        self.alloc_legs = legs
        self.alloc = None
        if legs:
            self.alloc = torque_allocation([self.hip_pos[i] for i in legs],
                                           [(q[self.hip_q[i]], q[self.hip_q[i] + 1]) for i in legs],
                                           [LEG_LENGTH + q[self.slide_q[i]] for i in legs])

    def _update_command(self, t: float, q: list[float]) -> None:
        """Apply a due schedule entry and refresh the path command (at liftoff)."""
        if self._next_cmd < len(self.schedule) and t >= self.schedule[self._next_cmd][0]:
            _, gait, speed = self.schedule[self._next_cmd]
            self._next_cmd += 1
            if gait != self.gait:
                landing = self.pairs[self.active][0]
                before = {frozenset(p) for p in self.pairs}
                self._set_gait(gait, speed)
                # From a bound the gallop's pairs are already running: no unison start.
                same = before == {frozenset(p) for p in self.pairs}
                self._gait_start = t - (self.g.unison_time if same else 0.0)
                self._events.append((t, gait))
                # The leg about to land stays in the active pair.
                self.active = 0 if landing in self.pairs[0] else 1
                self.timers = [StanceTimer(default=self.g.stance_guess) for _ in range(2)]
                self.thrust = [self.g.thrust, self.g.thrust]
                self.hip_top = [-math.inf, -math.inf]
            self.speed = speed
        if self.follower is not None:
            self.follower.speed = self.speed
            cmd = self.follower.update((q[0], q[1]))
            # Turn toward the path's heading at a limited yaw rate: a corner
            # asks for a step the trunk cannot follow within one stride.
            turn = (cmd.heading - self.heading + math.pi) % (2.0 * math.pi) - math.pi
            room = math.pi if self._cmd_time is None else self.g.turn_rate * max(t - self._cmd_time, 0.0)
            self.heading += max(-room, min(room, turn))
            self.want = math.hypot(float(cmd.velocity[0]), float(cmd.velocity[1]))
        else:
            self.want = self.speed
        self._heading_cs = (math.cos(self.heading), math.sin(self.heading))
        self._cmd_time = t

    def _touchdown(self, t: float, q: list[float]) -> None:
        g, k = self.g, self.active
        if self.hip_top[k] > 0.0:  # hopping height: trim this pair's thrust
            self.thrust[k] = min(max(self.thrust[k] + g.apex_gain * (g.apex - self.hip_top[k]), -0.03), 0.08)
        if self.td_xy is not None and t - self.td_xy[0] > 0.05:  # speed trim from the step just ended
            t0, x0, y0 = self.td_xy
            c, s = self._heading_cs
            got = (c * (q[0] - x0) + s * (q[1] - y0)) / (t - t0)
            bound = g.trim_limit * self.want + 0.1
            self.trim = min(max(self.trim + g.speed_trim_gain * (self.want - got), -bound), bound)
        self.td_time, self.td_xy = t, (t, q[0], q[1])
        self.timers[k].touchdown(t)

    def _liftoff(self, model: mujoco.MjModel, t: float, q: list[float]) -> None:
        """Interchange the virtual legs (and apply a due gait change)."""
        self.timers[self.active].liftoff(t)
        self.hip_top[self.active] = -math.inf
        self.active = 1 - self.active
        self._update_command(t, q)
        g = self.g
        # A gallop starts as a bound and staggers its pairs once that has settled.
        self.staggered = self.pattern.staggered and t - self._gait_start >= g.unison_time
        for i in range(4):
            self.leg_phase[i] = Phase.FLIGHT
            if self.stance[i]:
                self._set_mode(model, i, False)
        for i in self.pairs[1 - self.active]:
            self.rest[i] = -g.retract
        self.alloc, self.alloc_legs, self._servo_legs = None, (), None

    def _place(self, q, v, t, quat, pitch, r6, r7, a0, a1, trail_short) -> None:
        """RH91 Eq. 3 for the landing legs a0, a1, each foot relative to its own
        hip, and their lengths: equal foot heights, short while the hip rises,
        the trailing leg of a staggered pair ``stagger`` shorter if
        ``trail_short``. q, v: qpos, qvel lists; quat (w, x, y, z) of the trunk;
        r6, r7: its rotation matrix entries R[2,0], R[2,1]."""
        g = self.g
        timer = self.timers[self.active]
        ts = timer.default if timer.last_stance is None else timer.last_stance  # predicted_stance, inlined
        td = self.td_xy
        if td is None or t - td[0] < 0.05:
            vx, vy = v[0], v[1]
        else:  # mean velocity since the last touchdown: the trunk's own swings average out
            dt = t - td[0]
            vx, vy = (q[0] - td[1]) / dt, (q[1] - td[2]) / dt
        c, s = self._heading_cs
        vxh, vyh = c * vx + s * vy, c * vy - s * vx
        xf = 0.5 * vxh * ts + g.k_x * (vxh - self.want - self.trim)
        yf = 0.5 * vyh * ts + g.k_y * vyh
        ell = LEG_LENGTH + g.landing
        wz = -math.sqrt(max(ell * ell - xf * xf - yf * yf, 0.25 * ell * ell))
        wx, wy = c * xf - s * yf, s * xf + c * yf
        # Into trunk axes (Rᵀ from the quaternion): the foot lands where Eq. 3
        # wants it in the world whatever the trunk's attitude.
        w, x, y, z = quat
        fx = (1.0 - 2.0 * (y * y + z * z)) * wx + 2.0 * (x * y + w * z) * wy + r6 * wz
        fy = 2.0 * (x * y - w * z) * wx + (1.0 - 2.0 * (x * x + z * z)) * wy + r7 * wz
        fz = 2.0 * (x * z + w * y) * wx + 2.0 * (y * z - w * x) * wy + (1.0 - 2.0 * (x * x + y * y)) * wz
        sb = fx / math.sqrt(fx * fx + fy * fy + fz * fz)
        b = -math.asin(sb if -1.0 < sb < 1.0 else math.copysign(1.0, sb))
        a = math.atan2(fy, -fz) if fz < 0.0 else 0.0
        (px0, py0), (px1, py1) = self.hip_xy[a0], self.hip_xy[a1]
        hz0, hz1 = q[2] + r6 * px0 + r7 * py0, q[2] + r6 * px1 + r7 * py1
        if g.ground_match > 0.0:
            # Ground speed matching: over the last ``match_time`` before the
            # predicted touchdown the leg sweeps back at a share of ẋ/ℓ, so the
            # foot strikes slower (a 1 kg foot striking at body speed costs
            # speed and pitches the trunk nose down). The set point leads the
            # leg by the servo's lag kv ω / kp.
            vz = v[2] - 0.5 * (px0 + px1) * v[4]
            h = 0.5 * (hz0 + hz1) - ell * math.cos(b)
            t_td = (vz + math.sqrt(vz * vz + 2.0 * G * h)) / G if h > 0.0 else 0.0
            omega = g.ground_match * vxh / ell
            b += omega * (g.swing_kv / g.swing_kp - t_td) if t_td < g.match_time else -omega * g.match_time
        lim = g.max_swing
        b = lim if b > lim else (-lim if b < -lim else b)
        # Both legs point the same way; their lengths make up the difference in
        # hip height. While a hip still rises, its leg lengthens only as far as
        # the hip's height allows: a leg swung forward at full length would
        # scuff the ground.
        half = 0.5 * (hz0 - hz1)
        buf, rest, qs_hip, stance = self._qs_buf, self.rest, self._qs_hip, self.stance
        top = -g.clearance - LEG_LENGTH
        if not stance[a0]:
            h0, h1 = qs_hip[a0]
            buf[h0], buf[h1] = a, b
            target = g.landing + half
            if v[2] - px0 * v[4] > 0.0 and hz0 + top < target:
                target = hz0 + top
            rest[a0] = target
        if not stance[a1]:
            h0, h1 = qs_hip[a1]
            buf[h0], buf[h1] = a, b
            target = g.landing - half - (g.stagger if trail_short else 0.0)
            if v[2] - px1 * v[4] > 0.0 and hz1 + top < target:
                target = hz1 + top
            rest[a1] = target

    def _posture(self, q, v, quat, roll, pitch, a0, a1, t0, t1) -> None:
        """RH91 Eq. 4 on roll, pitch and heading, τ = −k_p (φ − φ_d) − k_v φ̇ per
        axis, through the hips of the touching legs of the active pair (t0, t1:
        whether a0, a1 touch), spread by least effort over the touching legs or,
        with ``pair_alloc``, over the whole pair (a touching leg takes its share
        only), and limited to ``max_torque`` per hinge."""
        g, buf_f, qf = self.g, self._qf_buf, self._qf_hip
        legs = (a0, a1) if t0 and t1 else ((a0,) if t0 else ((a1,) if t1 else ()))
        if legs != self._servo_legs:  # a leg landed or left: clear, reallocate
            self._servo_legs = legs
            for f in qf[a0] + qf[a1]:
                buf_f[f] = 0.0
            spread = (a0, a1) if legs and g.pair_alloc else legs
            if spread != self.alloc_legs:
                self._allocate(q, spread)
        if self.alloc is None:
            return
        kpr, kvr, kpp, kvp, kpy, kvy = self._gain_tuple
        w, x, y, z = quat
        e_yaw = math.atan2(2.0 * (x * y + w * z), 1.0 - 2.0 * (y * y + z * z)) - self.heading
        e_yaw = (e_yaw + math.pi) % (2.0 * math.pi) - math.pi
        tx = -kpr * roll - kvr * v[3]
        ty = -kpp * (pitch - g.pitch_desired) - kvp * v[4]
        tz = -kpy * e_yaw - kvy * v[5]
        W, lim = self.alloc, g.max_torque
        for k, i in enumerate(self.alloc_legs):
            if i in legs:
                w0, w1 = W[2 * k], W[2 * k + 1]
                f0, f1 = qf[i]
                u0 = w0[0] * tx + w0[1] * ty + w0[2] * tz
                u1 = w1[0] * tx + w1[1] * ty + w1[2] * tz
                buf_f[f0] = lim if u0 > lim else (-lim if u0 < -lim else u0)
                buf_f[f1] = lim if u1 > lim else (-lim if u1 < -lim else u1)

    def _idle_legs(self, q, roll, pitch, r6, r7, a0, a1, shorten) -> None:
        """The idle pair mirrors the active pair's world pitch angle (their swing
        moments on the trunk cancel), feet below the hips in roll; with
        ``idle_clearance`` (and ``shorten``) its legs are only as short as
        their feet need to clear the ground, at most ``retract``: a short
        flight leaves no time to lengthen a fully shortened leg."""
        g, buf = self.g, self._qs_buf
        i0, i1 = self.pairs[1 - self.active]
        hq = self.hip_q
        b = -0.5 * (q[hq[a0] + 1] + q[hq[a1] + 1]) - 2.0 * pitch
        for i in (i0, i1):
            h0, h1 = self._qs_hip[i]
            buf[h0], buf[h1] = -roll, b
        if g.idle_clearance and shorten:
            lo, hi, top = -g.retract, g.landing, q[2] - g.clearance - LEG_LENGTH
            for i in (i0, i1):
                if not self.stance[i]:
                    px, py = self.hip_xy[i]
                    room = top + r6 * px + r7 * py
                    self.rest[i] = lo if room < lo else (hi if room > hi else room)

    def _leg_cycle(self, model: mujoco.MjModel, i: int, q: list[float], xdot: float, touching: bool) -> None:
        """Thrust and unloading of one leg of a staggered pair, on its own spring;
        once up, the leg holds its angles (a limp hip would let it flail while
        its partner still carries the trunk)."""
        p = self.leg_phase[i]
        x = q[self.slide_q[i]]
        if p is Phase.FLIGHT and touching:
            self.leg_phase[i] = Phase.COMPRESSION
        elif p is Phase.COMPRESSION and x < self.rest[i] - 0.005 and xdot > 0.0:
            self.leg_phase[i] = Phase.THRUST
            self.rest[i] += self.thrust[self.active]
        elif p is Phase.THRUST and x > self.rest[i] - 0.01:
            self.leg_phase[i] = Phase.UNLOADING
            self.rest[i] = -self.g.retract
        elif p is Phase.UNLOADING and not touching:
            self._set_mode(model, i, False)
            h0, h1 = self._qs_hip[i]
            self._qs_buf[h0], self._qs_buf[h1] = q[self.hip_q[i]], q[self.hip_q[i] + 1]
