"""Why a simulated run stopped early: one event type for every controller
family (the legged runners' falls, the modal family's divergences and limit
stops), told apart by ``kind`` rather than by the wording of its reason."""
from __future__ import annotations

from dataclasses import dataclass

FELL = "fell"              # the runner's fall check fired: the creature is down or tipped over
DIVERGED = "diverged"      # the physics can no longer be trusted (non-finite state, MuJoCo reset, energy blow-up)
OVER_LIMIT = "over_limit"  # a joint or contact went past what the run allows (strict limits)
KINDS = (FELL, DIVERGED, OVER_LIMIT)
_VERBS = {FELL: "fell", DIVERGED: "diverged", OVER_LIMIT: "went over a limit"}


@dataclass(frozen=True)
class RunEvent:
    """A run's early end: time [s] at which it was noticed; reason, in
    words (without the kind); state: the controller's state label then
    ("" when not known); kind: one of :data:`KINDS`."""

    time: float
    reason: str
    state: str = ""
    kind: str = FELL

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown run event kind {self.kind!r} (kinds: {', '.join(KINDS)})")

    @property
    def fell(self) -> bool:
        """True when the creature fell (its fall check fired)."""
        return self.kind == FELL

    @property
    def over_limit(self) -> bool:
        """True when a joint or contact went past its limit."""
        return self.kind == OVER_LIMIT

    def __str__(self) -> str:
        where = f" in state {self.state}" if self.state else ""
        return f"{_VERBS[self.kind]} at t = {self.time:.3f} s ({self.reason}){where}"
