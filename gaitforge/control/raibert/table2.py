"""RH91 Table 2: the robot / animal and animation columns, as data, keyed by
the :class:`RunMeasures` field each row corresponds to."""
from __future__ import annotations

from typing import NamedTuple


class Row(NamedTuple):
    label: str  # the paper's wording, with units
    field: str  # RunMeasures field name
    real: float  # robot or animal
    animation: float  # the paper's animation


class Experiment(NamedTuple):
    title: str
    creature: str  # registry name
    gait: str
    speed: float  # desired speed we run at [m/s]: the paper's, or the top of our range below it
    rows: tuple[Row, ...]
    plot: str = "legs"  # its run's plot: "legs" (leg lengths, ground force) or "fig6" (joint angles, RH91 Fig. 6)


TABLE2: tuple[Experiment, ...] = (
    Experiment("Quadruped Bound", "raibert_quadruped", "bound", 2.8, (  # the paper's speed, top of SPEED_RANGES
        Row("pitch magnitude (deg)", "pitch_deg", 26.4, 25.8),
        Row("stride length (m)", "stride_length", 1.15, 1.22),
        Row("stride duration (s)", "stride_duration", 0.37, 0.43),
        Row("gathered flight phase duration (s)", "gathered_flight", 0.11, 0.22),
        Row("extended flight phase duration (s)", "extended_flight", 0.04, 0.03),
        Row("stance duration, front legs (s)", "stance_front", 0.10, 0.10),
        Row("stance duration, rear legs (s)", "stance_rear", 0.12, 0.08),
        Row("change of leg length during support (m)", "leg_length_change", 0.085, 0.092),
        Row("running speed (m/s)", "speed", 2.9, 2.8),
        Row("error in running speed (m/s)", "speed_error", 1.25, 1.2),
    )),
    Experiment("Quadruped Trot", "raibert_quadruped", "trot", 1.8, (  # top of SPEED_RANGES, below the paper's 2.3
        Row("pitch magnitude (deg)", "pitch_deg", 2.2, 6.2),
        Row("stride length (m)", "stride_length", 1.84, 1.49),
        Row("stride duration (s)", "stride_duration", 0.80, 0.54),
        Row("flight duration (s)", "flight_duration", 0.27, 0.18),
        Row("stance duration (s)", "stance_duration", 0.12, 0.09),
        Row("change of leg length during support (m)", "leg_length_change", 0.04, 0.03),
        Row("desired running speed (m/s)", "desired_speed", 2.3, 2.3),
        Row("error in running speed (m/s)", "speed_error", 0.7, 0.2),
    )),
    Experiment("Biped Run", "raibert_biped", "run", 1.5, (
        Row("pitch magnitude (deg)", "pitch_deg", 2.0, 3.4),
        Row("roll magnitude (deg)", "roll_deg", 6.7, 11.5),
        Row("stride length (m)", "stride_length", 0.57, 0.74),
        Row("stride duration (s)", "stride_duration", 0.36, 0.47),
        Row("flight duration (s)", "flight_duration", 0.18, 0.29),
        Row("stance duration (s)", "stance_duration", 0.18, 0.18),
        Row("change of leg length during support (m)", "leg_length_change", 0.01, 0.04),
        Row("error in running speed (m/s)", "speed_error", -0.3, 0.2),
    )),
    # The paper animated the hop at 5 m/s; under physical contacts the range ends at 4 m/s (kangaroo.gains).
    Experiment("Kangaroo Hop", "kangaroo", "hop", 4.0, (  # top of SPEED_RANGES
        Row("peak vertical acceleration (g)", "peak_vertical_accel_g", 5.0, 4.6),
        Row("pitch magnitude (deg)", "pitch_deg", 10.0, 12.0),
        Row("magnitude of tail wag relative to trunk (deg)", "tail_wag_deg", 30.0, 31.0),
        Row("stride length (m)", "stride_length", 2.2, 1.5),
        Row("stride duration (s)", "stride_duration", 0.35, 0.35),
        Row("flight duration (s)", "flight_duration", 0.25, 0.24),
        Row("stance duration (s)", "stance_duration", 0.10, 0.11),
        Row("desired running speed (m/s)", "desired_speed", 6.2, 5.0),
    ), plot="fig6"),
)
