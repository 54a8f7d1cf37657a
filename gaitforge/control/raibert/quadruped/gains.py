"""Gains, speed ranges and timing of the RH91 quadruped controller
(:mod:`gaitforge.control.raibert.quadruped`).

Every gain field names its Table 1 quantity (``metadata["quantity"]``), so a
scaled creature can scale its controller with ``scaling.factor``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

SPEED_RANGES: dict[str, tuple[float, float]] = {
    # Each end and the middle held 60 s from 20 of 20 perturbed starts (joints ±0.01 rad, start
    # speed ±5 %, friction ×0.8–1.2: benchmarks/robustness.py, docs/physics.md). Beyond: the trot
    # at RH91 Table 2's 2.3 m/s held 58 of 60 (falls at 6.3 and 5.9 s), the gallop at 1.45, 1.7
    # and 1.9 m/s 19 of 20 each (1.5, 1.6 and 1.8 held 20). The trot ends at 1.8 m/s: at 2.0 one of
    # the 20 starts fell (at 20 ms contacts so did one at 1.8), though 2.2 held all 20; its feet keep
    # within the contact rule up to 2.2 (at most 0.88 of half their 25 mm radius, benchmarks/
    # penetration.py, docs/physics.md).
    "trot": (0.5, 1.8),
    "bound": (1.0, 2.8),  # RH91 Table 2 pace: 60 s and 180 s runs hold 2.8 m/s within 5 %
    "gallop": (1.0, 1.4),
}
LEG_LENGTH = 0.81  # m, hip to foot with the leg spring relaxed (Table 3: 0.41 + 0.40); the
# controller reads its creature's own (common.leg_geometry); this is the unscaled robot's
FALL_HEIGHT = 0.4  # m, trunk height of a fall for the unscaled robot (scaled with the leg length)
TIMESTEP = 0.002  # s, the physics step the gains are tuned for (4 ms until the bound and gallop
# took 4 ms contacts: MuJoCo takes a solref time constant of at least twice the step)
CONTROL_DT = 0.012  # s, six physics steps per control tick


def _q(quantity: str, **kw):
    return field(metadata={"quantity": quantity}, **kw)


@dataclass(frozen=True)
class QuadrupedGains:
    """Gains of one quadruped gait."""

    k_x: float = _q("time", default=0.05)              # Eq. 3 forward gain [s]
    k_y: float = _q("time", default=0.05)              # Eq. 3 sideways gain [s]
    stance_guess: float = _q("time", default=0.10)     # T_s before the first stance [s]
    landing: float = _q("displacement", default=0.0)   # leg rest length at touchdown, from full [m]
    retract: float = _q("displacement", default=0.12)  # idle legs shortened by [m]
    thrust: float = _q("displacement", default=0.015)  # first rest-length rise in THRUST [m]
    apex: float = _q("displacement", default=0.84)     # desired top mean hip height of a pair [m]
    apex_gain: float = _q("angle", default=0.3)        # thrust change per metre of apex error [1]
    clearance: float = _q("displacement", default=0.03)  # a rising landing foot stays this high [m]
    idle_clearance: bool = False  # idle legs only as short as ground clearance needs (else ``retract``)
    stagger: float = _q("displacement", default=0.0)   # trailing leg held shorter (gallop) [m]
    unison_time: float = _q("time", default=0.0)       # a staggered gait runs unstaggered this long first [s]
    swing_kp: float = _q("torsional_stiffness", default=600.0)  # hip servo in swing [N m/rad]
    swing_kv: float = _q("torsional_damping", default=20.0)     # [N m s/rad]
    stance_kv: float = _q("torsional_damping", default=0.5)     # limp hip in stance [N m s/rad]
    roll_kp: float = _q("torsional_stiffness", default=300.0)   # Eq. 4 [N m/rad]
    roll_kv: float = _q("torsional_damping", default=30.0)      # [N m s/rad]
    pair_alloc: bool = False  # spread Eq. 4 over both legs of the pair even in single support
    pitch_kp: float = _q("torsional_stiffness", default=600.0)
    pitch_kv: float = _q("torsional_damping", default=20.0)
    yaw_kp: float = _q("torsional_stiffness", default=60.0)
    yaw_kv: float = _q("torsional_damping", default=10.0)
    turn_rate: float = _q("angular_velocity", default=0.45)  # top rate of the heading command [rad/s]
    max_torque: float = _q("torque", default=60.0)     # stance hip torque limit per hinge [N m]
    pitch_desired: float = _q("angle", default=0.0)    # trunk pitch [rad], + nose down
    ground_match: float = _q("angle", default=0.5)     # share of the body speed the landing foot sweeps back [1]
    match_time: float = _q("time", default=0.05)       # ... during this long before touchdown [s]
    max_swing: float = _q("angle", default=0.6)        # hip pitch limit of a placed leg [rad]
    touch_height: float = _q("displacement", default=0.002)  # a loaded foot below this touches [m]
    min_stance: float = _q("time", default=0.03)       # a stance lasts at least this long [s]
    leg_rate: float = _q("velocity", default=3.0)      # top speed of the leg rest-length set point [m/s]
    speed_trim_gain: float = _q("angle", default=0.1)  # integral speed trim per step [1]
    trim_limit: float = _q("angle", default=0.25)      # trim bound: this share of the speed + trim_floor [1]
    trim_floor: float = _q("velocity", default=0.1)    # ... plus this [m/s]
    settle_time: float = _q("time", default=0.05)      # a stance this young has no mean speed yet [s]
    thrust_min: float = _q("displacement", default=-0.03)  # bounds of the thrust trimmed by apex errors [m]
    thrust_max: float = _q("displacement", default=0.08)
    touch_slack: float = _q("displacement", default=0.002)  # a touching leg is shortened by this [m]
    compress_eps: float = _q("displacement", default=0.005)  # LOADING -> COMPRESSION shortening [m]
    full_margin: float = _q("displacement", default=0.01)    # THRUST ends this short of the rest length [m]
    stance_stiffness: float = _q("angle", default=1.0)  # leg spring stiffness in stance, x the model's [1]
    stagger_eps: float = _q("displacement", default=0.005)   # a staggered leg's compression before thrust [m]
    start_clearance: float = _q("displacement", default=0.03)  # feet above the ground at the start [m]
    # Ground contacts' solref time constant on the run's model copy [s] (0: the creature's own, 20 ms);
    # MuJoCo takes at least twice the physics step
    contact_timeconst: float = _q("time", default=0.0)


GAIT_GAINS: dict[str, QuadrupedGains] = {
    "trot": QuadrupedGains(
        # Above 2 m/s a trot's flights last three times its 0.1 s stances: the roll and yaw rates left at
        # liftoff carry through them unchecked and the tilt they leave grows from stride to stride (with
        # the default 30 and 10, 15 of 33 speeds from 2.0 to 2.4 m/s fell within 120 s). Damping both
        # more in stance halves the roll (mean 9.5 -> 5.2 deg peak to peak over those speeds).
        roll_kv=50.0, yaw_kv=20.0,
        # At the creature's own 20 ms contacts the feet sank 8.4-9.9 mm up to 1.35 m/s, but from 1.6 m/s a
        # 14 mm lower-leg capsule touched (18.6 mm deep at 2.2 m/s). 6 ms: only the 25 mm feet touch, at
        # most 6.1 mm deep (2.2 m/s), and 0.5, 1.35 and 2.2 m/s hold 20 of 20 perturbed starts (2.0: 19 of
        # 20, as at 20 ms, where 1.8 did too). At 4 ms the trot at 2.2 m/s held 18 of 20, at 8 ms 17 of 20.
        contact_timeconst=0.006,
    ),
    "bound": QuadrupedGains(
        pitch_kv=30.0, idle_clearance=True,
        apex=0.95,  # higher hops rock the trunk 23-26 deg peak to peak in 0.42 s strides (RH91: 25.8 deg, 0.43 s)
        pitch_desired=0.05,  # 2.9 deg nose down: the front feet land soon after the rear push (extended flight short)
        roll_kp=100.0, roll_kv=50.0,  # the roll rate left at liftoff lasts the longer flights: damp it, spring less
        stance_guess=0.10,  # a bound pair's stance on the softened springs (the first placement after a switch)
        # The model's leg springs (12.2 kN/m) bounce a pair in 0.07 s and compress 0.037 m at 2.8 m/s; at
        # 0.35 of that stiffness in stance they take 0.11 / 0.10 s (front / rear) and compress 0.083 m,
        # near RH91 Table 2 (0.10 / 0.08 s, 0.092 m; measured at the 20 ms contacts and 4 ms step). A softer
        # bound needs a larger speed trim (the legs sweep further in stance): 1.2-1.4 m/s at 2.8 m/s, about
        # the paper's own bound speed error.
        stance_stiffness=0.45, trim_limit=0.45,
        # 0.45 since the 4 ms contacts and 2 ms step below: at 0.35 the bound at 2.8 m/s then held 18 of 20
        # perturbed starts (2.5 m/s: 16 of 20); at 0.45 every end and the middle hold 20 of 20, the stances at
        # 2.8 m/s last 0.087 / 0.080 s and the legs compress 0.055 m (tests/test_raibert_table2.py).
        # 4 ms contacts (twice the 2 ms step): the 25 mm feet sink at most 5.6 mm (2.8 m/s) and the 14 mm
        # lower-leg capsules no longer touch; at the creature's 20 ms the feet sank 18-24 mm and at 8 ms
        # (4 ms step) the capsules still touched at 1.0 and 2.8 m/s, sinking up to 12.7 mm
        contact_timeconst=0.004,
    ),
    "gallop": QuadrupedGains(pitch_kv=30.0, apex=0.9, idle_clearance=True,
                             stagger=0.02, unison_time=3.0, pair_alloc=True,
                             # as the bound's: the feet sink at most 5.2 mm; at 20 ms up to 32.6 mm, at 8 ms 17.6 mm
                             contact_timeconst=0.004),
}
