"""The one assertion about joint limits that the long-horizon tests share:
the run declared its limits (``sim.limits``), its drives were clipped (by
the torque bound or the torque–speed envelope) in at most a small share of
control ticks, and its joints stayed under their
speed bound — except the gaits listed in ``FASTER``, which docs/physics.md
names as exceeding it, held there to what was measured over 20 perturbed
starts plus a margin (benchmarks/robustness.py)."""
from __future__ import annotations

# (runner, gait) → largest peak joint speed allowed, × the bound (40 rad/s). Measured worst of 20
# perturbed starts × 60 s at the range's ends and middle: gorilla DS walk 1.26 (0.3 m/s) and trot 1.54
# (in place; 1.69 at half its step), its toes and knuckles snapping down on its 3 ms contacts (1.05 and
# 1.01 on the former 12 ms), kangaroo hop 1.21 (its ankle, whose set point moves at 40 rad/s).
# The dog's canter and gallop (1.08 and 1.03 at its former 20 ms contacts) stay under it at 8 ms
# (0.33 and 0.87); its trot at 0.85 m/s reaches 1.05 there (0.28 and 0.69 at the range's ends).
FASTER = {("dog", "trot"): 1.25, ("gorilla", "ds_walk"): 1.4,
          ("gorilla", "trot"): 1.8, ("kangaroo", "hop"): 1.35}

CLIPPED = 0.03  # the largest share of control ticks with a drive clipped (worst measured: 1.8 %, kangaroo 5.25 m/s)
# Gaits whose drives meet the torque–speed envelope often: the kangaroo's hops from 4.1 m/s swing the
# ankle at its 40 rad/s limit, so its drive there is cut in 3.5–5.5 % of the ticks of a 60 s run.
CLIPPED_BY_GAIT = {("kangaroo", "hop"): 0.08}


def assert_within_limits(rollout, runner: str, gait: str) -> None:
    """``rollout`` of ``runner``'s ``gait`` kept to its joint limits as above."""
    report = rollout.limits
    assert report is not None, f"{runner} declares no joint limits"
    assert report.clipped <= CLIPPED_BY_GAIT.get((runner, gait), CLIPPED) * report.ticks, str(report)
    assert report.peak_speed < FASTER.get((runner, gait), 1.0), str(report)
