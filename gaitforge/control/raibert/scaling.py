"""Dynamic scaling by a length factor L with gravity unchanged (RH91 Table 1).

Each physical quantity scales by L raised to its exponent below; a creature
scaled this way, with its controller scaled the same way, moves exactly like
the original with lengths × L and times × √L (so it hops L times as high,
travels √L times as fast, at 1/√L the cadence).
"""
from __future__ import annotations

import dataclasses

EXPONENTS: dict[str, float] = {
    "length": 1.0, "time": 0.5, "force": 3.0, "torque": 4.0,
    "displacement": 1.0, "velocity": 0.5, "acceleration": 0.0, "angle": 0.0,
    "angular_velocity": -0.5, "angular_acceleration": -1.0,
    "mass": 3.0, "stiffness": 2.0, "damping": 2.5, "inertia": 5.0,
    "torsional_stiffness": 4.0, "torsional_damping": 4.5,
}


def factor(quantity: str, L: float) -> float:
    """The factor by which ``quantity`` scales for a size change of ``L``."""
    try:
        return L ** EXPONENTS[quantity]
    except KeyError:
        raise KeyError(f"unknown quantity {quantity!r} (known: {', '.join(EXPONENTS)})") from None


def scale_gains(gains, L: float):
    """A copy of the dataclass ``gains`` with every field whose metadata names
    a Table 1 quantity scaled by that quantity's factor (None: unchanged)."""
    changes = {}
    for f in dataclasses.fields(gains):
        quantity = f.metadata.get("quantity")
        value = getattr(gains, f.name)
        if quantity is not None and value is not None:
            changes[f.name] = value * factor(quantity, L)
    return dataclasses.replace(gains, **changes)
