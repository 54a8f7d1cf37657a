"""What the ensemble benchmarks share (``modal_convergence.py``,
``contact_bases.py``): the summary of a set of runs."""
from __future__ import annotations

import math

import numpy as np


def mean_se(values) -> tuple[float, float]:
    """(mean, standard error of the mean) of the finite ``values`` (nan,
    nan when none; the error nan for one value)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not len(v):
        return math.nan, math.nan
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.nan
