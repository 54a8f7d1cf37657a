"""The running state machine of RH91 Fig. 4, once, compiled: phase codes
and the rule that advances them. Every controller's tick calls
:func:`next_phase`; ``fsm.PhaseMachine`` calls it too, so the Python view
and the compiled ticks share one rule.

    FLIGHT --touchdown--> LOADING --spring shortens--> COMPRESSION
      ^                                                    |
      |                                            spring lengthens
      |                                                    v
    (liftoff) <---------------- UNLOADING <------------- THRUST
                                      spring near full length
"""
from __future__ import annotations

from gaitforge.control.jit import kernel

#: Phase codes, in ``fsm.Phase`` order.
FLIGHT, LOADING, COMPRESSION, THRUST, UNLOADING = range(5)
NAMES = ("flight", "loading", "compression", "thrust", "unloading")


@kernel
def next_phase(ph, touching, length, rate, rest_length, eps, full):
    """The phase after ``ph`` (a code) for one control tick: touching (bool,
    the foot is loaded), the spring's length [m or rad], its rate [m/s or
    rad/s] and rest length; eps: how far the spring must shorten below its
    rest length before LOADING becomes COMPRESSION; full: THRUST ends when
    the length is back to ``full`` × the rest length. Any stance phase
    without ``touching`` goes to FLIGHT (liftoff)."""
    if ph == FLIGHT:
        return LOADING if touching else FLIGHT
    if not touching:
        return FLIGHT
    if ph == LOADING:
        return COMPRESSION if length < rest_length - eps else ph
    if ph == COMPRESSION:
        return THRUST if rate > 0.0 else ph
    if ph == THRUST and length >= full * rest_length:
        return UNLOADING
    return ph
