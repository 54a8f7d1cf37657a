"""Hopping and jumping of the planar kangaroo (Raibert & Hodgins 1991, §4
"Kangaroo control"), on the ``kangaroo`` creature.

Joints: hip = ``thigh``, knee = ``shin``, ankle = ``foot`` (the energy store),
tail base ``tail1`` (+ passive ``tail2``, ``tail3``), ``head``. Angles below are
world pitches about +y (positive turns a link's +x axis down). The state
machine is RH91 Fig. 4 (``fsm.PhaseMachine``) on the virtual leg hip-to-toe.

- Hopping (Eqs. 1-2): the ankle spring's rest angle is the programmable rest
  length. From touchdown to UNLOADING it is set each tick so that strain +
  elevation + vertical kinetic energy equal M g h for the apex h wanted (Eq. 2
  used as a feedback law; energy is only ever added, and a per-hop integral on
  the measured apex absorbs the losses); in UNLOADING the rest is held.
- Thrust line: in stance the hip servo keeps the knee on the line from the
  toe through the centre of mass; the knee adds the torque that turns the
  ground force onto that line when the knee is off it (shin and foot taken as
  massless; the force comes from the ankle spring's torque and lever).
- Posture (Eq. 4): knee torque in stance; the rate is the whole-body rate
  L / I (angular momentum about the COM over the pitch inertia), so that leg
  and tail swings do not read as trunk rotation.
- Speed (Eq. 3): in flight hip, knee and ankle servo the toe to x_fh,d ahead
  of the COM with the knee already on the toe-to-COM line, the leg shortened
  while rising; T_s is a running mean of measured stances; a per-hop integral
  of the speed error removes the bias of the neutral-point estimate.
- Tail: the base joint's rest angle steps down in stance and up in flight;
  the three tail springs are scaled together so that the tail's first mode
  (trunk held) has the hop period; the head is servoed level.
- Jump (``JumpPlan``): extra states: approach hops adjust their flights to
  reach a take-off spot, the take-off stance has a stiffer ankle and a higher
  apex, the leg stays tucked over the box, the landing stance has extra ankle
  damping, then hopping resumes. ``state`` reads e.g. ``jump_takeoff:thrust``.

Timing: physics 2 ms, control every 6 ms. At a 2 ms step the light foot,
released by the soft contact while the stiff ankle spring still pushes, whips
and strikes the ground again late in stance (toe back at up to 5.6 m/s
against 1.5 m/s at 1 ms); a tick that samples such a gap reads a false
liftoff, and 4.5 m/s fell. Two changes together hold every check at 2 ms
(each alone does not): ``ankle_armature`` (0.003 kg m², a rotor inertia at
the ankle, ~1.5 % of what the ankle sees in stance) slows the whip to the
1 ms level, and ``debounce`` 0.06 s ignores contact gaps in the first 60 ms
of a stance (the shortest real stance is ~64 ms, the jump's take-off). With
0.002 kg m² the 60 s hops fell at 2.875 and 2.95 m/s (after 51-55 s); with
0.003 every speed from 0.5 to 5.0 m/s in 0.0625 steps (and 2.5-3.25 in
0.025 steps) holds 60 s. Above 5 m/s a stance can be shorter than the
debounce (48 ms was seen at 5.5 m/s): inside it a lost contact is a liftoff
once the leg is back to ``liftoff_extension`` (0.9) of its touchdown length
(a whip gap comes while the leg is still compressed); this holds the range
to 5.5 m/s (``kangaroo.gains``).
The runs start in flight at ``start_speed`` and ramp the desired speed.

Modules: this one holds the hop controller and its factory; the gains are in
:mod:`kangaroo.gains`, the leg geometry in :mod:`kangaroo.geometry`, the jump
in :mod:`kangaroo.jump` and the Fig. 6 helpers in :mod:`kangaroo.fig6` (all
re-exported here). Each tick runs the compiled ``tick`` of
:mod:`kangaroo.kernel` on the state array and the ``MjData`` / ``MjModel``
windows set up by :mod:`kangaroo.state`; this class feeds it the time and the
foot's contact, records phase changes in the PhaseMachine and StanceTimer and
plans the jump.
"""
from __future__ import annotations

import warnings
from dataclasses import fields, replace

from gaitforge.control.raibert.kangaroo.fig6 import fig6_data, leg_angles
from gaitforge.control.raibert.kangaroo.gains import SPEED_RANGES, KangarooGains
from gaitforge.control.raibert.kangaroo.geometry import landing_pose, thrust_line_thigh
from gaitforge.control.raibert.kangaroo.hop import KangarooHop, fall_check
from gaitforge.control.raibert.kangaroo.jump import JumpPlan, with_obstacle
from gaitforge.control.raibert.scaling import factor, scale_gains
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError

__all__ = ["SPEED_RANGES", "JumpPlan", "KangarooGains", "KangarooHop", "fall_check", "fig6_data", "landing_pose",
           "leg_angles", "make_controller", "thrust_line_thigh", "with_obstacle"]


def make_controller(character: Character, gait: str, speed: float, **options) -> KangarooHop:
    """The kangaroo controller for ``gait`` (``hop``) at ``speed`` [m/s]
    (clamped to ``SPEED_RANGES`` with a warning; ``clamp=False``: as
    asked, to measure beyond the range). Options: ``gains``
    (KangarooGains), ``jump`` (JumpPlan), ``touch_sensor``, or any
    KangarooGains field name to override it; ``scale``: the factor L the
    creature was scaled by (RH91 Table 1): the gains (given or default) and
    the speed range are scaled by it."""
    if gait not in SPEED_RANGES:
        raise UnknownNameError(f"unknown kangaroo gait {gait!r} (valid gaits: {', '.join(SPEED_RANGES)})")
    scale = options.pop("scale", 1.0)
    clamp = options.pop("clamp", True)
    if not scale > 0:
        raise GaitforgeError(f"scale must be positive, got {scale!r}")
    lo, hi = (v * factor("velocity", scale) for v in SPEED_RANGES[gait])
    if clamp and not lo <= speed <= hi:
        warnings.warn(f"kangaroo {gait}: desired speed {speed} m/s is outside [{lo}, {hi}] m/s; "
                      f"clamped to {min(max(speed, lo), hi)} m/s", stacklevel=2)
        speed = min(max(speed, lo), hi)
    gains = options.pop("gains", None) or KangarooGains()
    if scale != 1.0:
        gains = scale_gains(gains, scale)
    jump, sensor = options.pop("jump", None), options.pop("touch_sensor", None)
    names = {f.name for f in fields(KangarooGains)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise GaitforgeError(f"unknown kangaroo option(s) {', '.join(unknown)} "
                             f"(valid: gains, jump, touch_sensor, {', '.join(sorted(names))})")
    return KangarooHop(character, speed, replace(gains, **options), jump=jump, touch_sensor=sensor)
