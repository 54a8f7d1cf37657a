"""Gains and speed range of the RH91 kangaroo controller
(:mod:`gaitforge.control.raibert.kangaroo`).

Every field names its RH91 Table 1 quantity in ``metadata["quantity"]`` (None:
dimensionless), so ``scaled.scale_gains`` can resize a scaled kangaroo's
controller.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# Every 0.0625 m/s from 0.5 to 5.625 and every 0.0125 from 5.0 to 5.6625 holds 60 s, 5.3-5.55 hold 120 s; the
# first fall is at 5.675 (5.6 falls after 104 s). Above 5 m/s the stance (0.06-0.07 s) is no longer than the
# contact debounce: a liftoff is then read from the leg's extension (``liftoff_extension``). Before that, the
# first fall on the 0.0125 grid was at 5.525 m/s.
# From perturbed starts (joints ±0.01 rad, start speed ±5 %, friction ×0.8–1.2; benchmarks/robustness.py)
# 5.5 m/s held 19 of 20 (a fall at 57 s); 0.5, 2.875, 4.5, 5.0 and 5.25 held 20 of 20.
# All that was under 20 ms contacts, which let the 16 mm toe sink 13.5–16 mm. Under the physical 5 ms
# contacts (contact_timeconst) the toe sinks at most 5.7 mm up to 4.0 m/s (60 s runs from rest), but at
# 4.5 m/s the tail touches the ground and sinks 11.9 mm (its 13 mm radius allows 6.5), and at 5.25 m/s runs
# fall within 16 s (at 5, 6 and 8 ms): the range ends at 4.0 m/s.
SPEED_RANGES: dict[str, tuple[float, float]] = {"hop": (0.5, 4.0)}


def _q(quantity: str | None, default):
    """A gains field tagged with its Table 1 quantity (None: dimensionless)."""
    return field(default=default, metadata={"quantity": quantity})


@dataclass(frozen=True)
class KangarooGains:
    """Gains of the kangaroo controller; each field's metadata names its
    RH91 Table 1 quantity, so ``scaled.scale_gains`` can resize them."""

    timestep: float = _q("time", 0.002)          # physics step [s] (see kangaroo.py, "Timing")
    control_dt: float = _q("time", 0.006)        # control interval [s]
    k_x: float = _q("time", 0.06)                # Eq. 3 gain [s]
    k_xi: float = _q("time", 0.015)              # per-hop integral of the speed error [s]
    start_speed: float = _q("velocity", 1.5)     # runs start at this speed (or the desired, if lower) [m/s]
    accel: float = _q("acceleration", 0.5)       # the desired speed then ramps at this rate [m/s²]
    stance_guess: float = _q("time", 0.11)       # T_s before the first stance [s]
    stance_smoothing: float = _q(None, 0.3)      # weight of the newest stance in T_s's running mean
    debounce: float = _q("time", 0.06)           # contact changes ignored this soon after the last [s] ...
    liftoff_extension: float = _q(None, 0.9)     # ... unless the leg is back to this share of its touchdown length
    compress_eps: float = _q("length", 0.004)    # leg shortening that starts COMPRESSION [m]
    leg_length_td: float = _q("length", 0.42)    # hip-to-toe length at touchdown [m]
    swing_clearance: float = _q("length", 0.08)  # toe height kept while the leg swings up [m]
    flight_time: float = _q("time", 0.24)        # wanted flight duration [s]
    apex_gain: float = _q(None, 0.5)             # per-hop integral gain on the apex error
    ankle_thrust_max: float = _q("angle", 0.8)   # largest change of the ankle rest in stance [rad]
    # The ankle rest moves at most this fast [rad/s] in flight and in stance (it stepped 0.9 rad at lift-off:
    # 1.9 x 3 m g L, 90 rad/s at 5.25 m/s). In flight it must reach the landing pose: at 20 or 30 rad/s
    # 3-7 of 10 perturbed starts fell near 4.3 m/s; in stance at 20 rad/s the jump's take-off fell short
    # (benchmarks/kangaroo_ankle.py, tests/test_raibert_kangaroo.py).
    ankle_rate: float = _q("angular_velocity", 40.0)
    ankle_thrust_rate: float = _q("angular_velocity", 40.0)
    hip_kp: float = _q("torsional_stiffness", 150.0)        # hip servo in flight (Eq. 5)
    hip_kv: float = _q("torsional_damping", 3.0)
    hip_kp_stance: float = _q("torsional_stiffness", 400.0)  # hip servo keeping the thrust line
    hip_kv_stance: float = _q("torsional_damping", 6.0)
    knee_kp: float = _q("torsional_stiffness", 100.0)       # knee servo in flight
    knee_kv: float = _q("torsional_damping", 2.0)
    posture_kp: float = _q("torsional_stiffness", 20.0)     # Eq. 4 at the knee in stance
    posture_kv: float = _q("torsional_damping", 5.0)
    pitch_desired: float = _q("angle", -0.30)    # trunk world pitch [rad] (the built rest pose)
    tail_amplitude: float = _q("angle", 0.15)    # step of the tail base rest angle [rad]
    tail_lift: float = _q("angle", 0.3)          # tail base rest raised above the built pose [rad]
    tail_period: float = _q("time", 0.35)        # tail's first-mode period, trunk held [s]
    tail_damping_ratio: float = _q(None, 0.6)
    head_kp: float = _q("torsional_stiffness", 3.0)
    head_kv: float = _q("torsional_damping", 0.1)  # damping ratio 0.74 (head 1.5e-3 kg m²; at 0.03, 0.22, it whipped)
    # MuJoCo contact solref time constant [s]: 5 ms keeps the toe's landing within half its 16 mm radius
    # (20 ms let it sink 13.5–16 mm; 8 ms, 10.6 mm at 4 m/s)
    contact_timeconst: float = _q("time", 0.005)
    armature: float = _q("inertia", 0.0)          # added to each non-root joint's armature on the model copy [kg m²]
    ankle_armature: float = _q("inertia", 0.003)  # added to the ankle's armature on the model copy [kg m²]
