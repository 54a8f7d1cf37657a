"""Gains, speed ranges and timing of the RH91 biped controllers
(:mod:`gaitforge.control.raibert.biped`), as data in one place.

Every gain field names its RH91 Table 1 quantity (``metadata["quantity"]``),
so a scaled creature can scale its controller with ``scaling.factor``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

GAITS = ("run", "gallop_together", "gallop_alternate")
# Desired speeds [m/s] for which 60 s runs were measured to hold the mean
# speed of their last 20 s within 10 % without falling (the ends of each
# range are checked in tests/test_raibert_biped.py). Measured just above:
# run 5.0 m/s fell at 51 s, gallop_together 1.5 at 32 s, gallop_alternate
# 1.25 at 27 s. Under the 6.7 ms contacts (BipedGains.contact_timeconst) the
# alternating gallop at 1.0 m/s held 12 of 20 perturbed starts (the first
# fall at 10.3 s; benchmarks/robustness.py), at 0.85 and 0.9 m/s 20 of 20. The run ends at
# 3.5 m/s by the contact rule (docs/physics.md; benchmarks/penetration.py, every physics step of
# 20 perturbed starts): at 4.0 m/s a foot sank up to 13.3 mm, past half its 25 mm radius in 4 of
# 20 starts.
SPEED_RANGES: dict[str, tuple[float, float]] = {
    "run": (0.5, 3.5), "gallop_together": (0.5, 1.25), "gallop_alternate": (0.5, 0.9)}
CONTROL_DT = 0.010  # s: three physics steps (raibert_biped: 1/300 s) per control tick (× √L scaled by L)
LEG_LENGTH = 0.83  # m: hip to foot tip at slide coordinate 0 (Table 3: 0.20 + 0.63) of the unscaled
# robot; the controllers read their creature's own into the state (LEG_LEN)
FALL_HEIGHT = 0.45  # m: trunk height of a fall for the unscaled robot (scaled with the leg length)


def _q(quantity: str, default: float):
    return field(default=default, metadata={"quantity": quantity})


@dataclass(frozen=True)
class BipedGains:
    """Control parameters (SI units), symbols after RH91.

    k_x [s]: Eq. 3 speed gain; stance_default [s]: T_s before one is
    measured; kp_posture/kv_posture [N m/rad, N m s/rad]: Eq. 4 roll and
    pitch servo; kp_yaw/kv_yaw: its yaw part (through the hip twist);
    hip_kp/hip_kv: swing hip servo (Eq. 5); landing/short [m]: slide set
    points (0 = the 0.83 m leg) to land with and to keep a leg clear; apex
    [m]: desired apex of the mass centre (Eq. 2); thrust_max [m]: largest
    thrust extension (the slide stops at +0.10 m); slew [m/s]: rate of all
    other rest-length changes; loss_gain: fraction of each apex error's
    energy added to the learned hop loss; torsion [m]: torsional friction of
    the feet; roll_lead: fraction of a flight's roll pre-compensated in the
    support before it (run); trim_gain, trim_max [m/s]: speed trim learning
    rate and bound; gallop_lag [s]: least delay of the leading footfall
    after the trailing one; gallop_share: share of the energy deficit the
    trailing leg injects; compress_eps [m]: the phase machine's (LOADING to
    COMPRESSION); touch_slack [m]: a leg this much shorter than its rest
    length is loaded; speed_floor [m/s]: the speed trim learns only while the
    desired velocity changed by less than 15 % of max(speed, speed_floor)
    since the last step; late_fall_speed [m/s], late_time [s]: a gallop leg
    lengthens regardless of its aim once the mass centre falls faster, or
    (leading leg) this long after the trailing foot landed;
    contact_timeconst [s]: the ground contacts' solref time constant on the
    run's model copy (0: the creature's own). Every field
    names its RH91 Table 1 quantity (``metadata["quantity"]``), so
    ``scaled.scale_gains`` scales them.
    """

    k_x: float = _q("time", 0.08)
    stance_default: float = _q("time", 0.18)
    kp_posture: float = _q("torsional_stiffness", 600.0)
    kv_posture: float = _q("torsional_damping", 50.0)
    kp_yaw: float = _q("torsional_stiffness", 30.0)
    kv_yaw: float = _q("torsional_damping", 16.0)
    hip_kp: float = _q("torsional_stiffness", 400.0)
    hip_kv: float = _q("torsional_damping", 10.0)
    landing: float = _q("displacement", 0.0)
    short: float = _q("displacement", -0.15)
    apex: float = _q("length", 0.86)
    thrust_max: float = _q("displacement", 0.09)
    slew: float = _q("velocity", 1.5)
    loss_gain: float = _q("angle", 0.5)
    torsion: float = _q("length", 0.02)
    roll_lead: float = _q("angle", 0.5)
    trim_gain: float = _q("angle", 0.3)
    trim_max: float = _q("velocity", 1.0)
    gallop_lag: float = _q("time", 0.0)
    gallop_share: float = _q("angle", 0.5)
    compress_eps: float = _q("displacement", 0.003)
    touch_slack: float = _q("displacement", 0.005)
    speed_floor: float = _q("velocity", 0.1)
    late_fall_speed: float = _q("velocity", 1.5)
    late_time: float = _q("time", 0.15)
    # 6.7 ms (twice the 3.3 ms step, the least MuJoCo takes): the 25 mm feet sink at most 11.3 mm (run at
    # 4 m/s), and no lower-leg capsule touches the ground; at the creature's 20 ms they sank 14–27 mm and the
    # 12 mm shin capsules touched
    contact_timeconst: float = _q("time", 0.0067)
