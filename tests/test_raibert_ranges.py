"""Every RH91 gait across its whole stated speed range: 60 s at every point
of a 0.1 m/s grid (and both ends) without falling, holding the desired speed
within 10 % over the last 20 s. The gait tests check the ends and a few
characteristic speeds; this sweep is what the ranges in the controllers
promise (finer sweeps, 0.0125 m/s, are recorded beside each range)."""
import warnings

import numpy as np
import pytest

from gaitforge.control.raibert import catalog
from limits_check import assert_within_limits


def grid(lo: float, hi: float, step: float = 0.1) -> list[float]:
    inner = np.arange(np.ceil(lo / step) * step, hi, step)
    return sorted({round(float(v), 4) for v in (lo, *inner, hi)})


CASES = [(key, gait, v) for key, r in catalog.RUNNERS.items() for gait, (lo, hi) in r.speed_ranges.items()
         for v in grid(lo, hi)]


@pytest.mark.slow
@pytest.mark.parametrize("key, gait, speed", CASES, ids=[f"{k}-{g}-{v}" for k, g, v in CASES])
def test_sixty_seconds_at_every_speed_of_the_range(key, gait, speed):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # inside the range: no clamping
        _, rollout = catalog.simulate(key, gait, speed, 60.0, record_fps=50.0)
    assert rollout.fall is None, str(rollout.fall)
    assert_within_limits(rollout, key, gait)
    t, q = rollout.times, rollout.clip.qpos
    last = t >= 40.0
    planar = key == "kangaroo"  # root slides x, z: qpos[0] is x
    xy = q[last][:, :1] if planar else q[last][:, :2]
    mean = np.linalg.norm(xy[-1] - xy[0]) / (t[last][-1] - t[last][0])
    assert mean == pytest.approx(speed, rel=0.1)
