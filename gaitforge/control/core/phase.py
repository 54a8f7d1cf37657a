"""The running state machine of RH91 Fig. 4, once, compiled: phase codes
and the rule that advances them. Every controller's tick calls
:func:`next_phase`; ``fsm.PhaseMachine`` calls it too, so the Python view
and the compiled ticks share one rule. The ticks log the changes they make
(:func:`log_phase`); Python drains the log (:func:`drain`) into its views.

    FLIGHT --touchdown--> LOADING --spring shortens--> COMPRESSION
      ^                                                    |
      |                                            spring lengthens
      |                                                    v
    (liftoff) <---------------- UNLOADING <------------- THRUST
                                      spring near full length
"""
from __future__ import annotations

from gaitforge.control.core.layout import Field
from gaitforge.jit import kernel

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


# ------------------------------------------------------------------ phase log
# The compiled ticks log each phase change in their state array; Python drains
# the log into the ``fsm.PhaseMachine`` and ``fsm.StanceTimer`` views
# (``fsm.replay``). A log of ``cap`` entries is three fields of a layout
# (``log_fields``): the count, the times [s] and the codes (slot × SLOT +
# phase code; the slot names the machine, e.g. a leg).
SLOT = 8


def log_fields(cap: int) -> list[Field]:
    """The fields of a phase log of ``cap`` entries (for a float64 ``core.layout.Layout``)."""
    return [Field("log_n", kind=int), Field("log_t", cap, unit="s"), Field("log_code", cap, kind=int)]


@kernel
def log_phase(state, at, cap, t, slot, phase):
    """Append the change to ``phase`` of machine ``slot`` at t [s] to the log
    whose count is ``state[at]`` (``log_fields`` order); returns the number
    of entries still free (the caller drains the log before it is full)."""
    n = int(state[at])
    state[at + 1 + n] = t
    state[at + 1 + cap + n] = slot * SLOT + phase
    state[at] = n + 1
    return cap - n - 1


def drain(state, at: int, cap: int) -> list[tuple[float, int, int]]:
    """The logged changes as (t [s], slot, phase code), oldest first; empties the log."""
    n = int(state[at])
    times = state[at + 1:at + 1 + n].tolist()
    codes = state[at + 1 + cap:at + 1 + cap + n].tolist()
    state[at] = 0
    return [(t, int(c) // SLOT, int(c) % SLOT) for t, c in zip(times, codes)]
