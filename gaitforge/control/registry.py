"""The one registry of simulated controllers: every runnable (creature,
gait) of the Raibert & Hodgins, skills and modal families as an
:class:`~gaitforge.control.entry.Entry` with the same ``run`` call.

The command line (``run``, ``push``, ``runners``), the API (``gf.run``,
``gf.push``) and the parametrized tests all read :data:`ENTRIES`. Names:
an entry's key is its creature's registry name (``raibert_biped``); the
Raibert catalogue's family names (``biped``, ``quadruped``) are accepted as
aliases.
"""
from __future__ import annotations

from typing import Any, Mapping

from gaitforge.control.entry import Entry
from gaitforge.control.runners import modal, raibert, skills
from gaitforge.errors import UnknownNameError
from gaitforge.naming import match

ENTRIES: tuple[Entry, ...] = (*raibert.entries(), *skills.entries(), *modal.entries())


def keys() -> list[str]:
    """Every runner's key, in registry order (Raibert, skills, modal)."""
    return list(dict.fromkeys(e.key for e in ENTRIES))


def aliases() -> list[str]:
    """The other names accepted for runners (``biped``, ``quadruped``)."""
    return list(dict.fromkeys(a for e in ENTRIES for a in e.aliases))


def key_of(name: str) -> str:
    """The key of the runner ``name`` names (its key or an alias, ``-`` and
    ``_`` alike); raises ``UnknownNameError`` listing the runners."""
    found = match(name, [n for e in ENTRIES for n in e.names])
    if found is None:
        raise UnknownNameError(f"no simulated controller for {name!r} (creatures with one: {', '.join(keys())}; "
                               f"also accepted: {', '.join(aliases())})")
    return next(e.key for e in ENTRIES if found in e.names)


def gaits(name: str) -> list[Entry]:
    """The entries of runner ``name`` (a key or an alias), one per gait."""
    key = key_of(name)
    return [e for e in ENTRIES if e.key == key]


def entry(name: str, gait: str | None = None) -> Entry:
    """The entry of runner ``name`` and ``gait`` (None: the runner's default
    gait); raises ``UnknownNameError`` for an unknown runner or gait."""
    mine = gaits(name)
    if gait is None:
        return next(e for e in mine if e.default)
    found = match(gait, [e.gait for e in mine])
    if found is None:
        raise UnknownNameError(f"{name} has no gait {gait!r} (valid gaits: {', '.join(e.gait for e in mine)})")
    return next(e for e in mine if e.gait == found)


def catalogue(e: Entry):
    """The family catalogue's ``sim.catalog.Runner`` behind a legged entry
    (its ``make``, ``speed_ranges``); None for a modal entry."""
    for runners in (raibert.catalog.RUNNERS, skills.catalog.RUNNERS):
        for r in runners.values():
            if r.creature == e.creature:
                return r
    return None


def standing() -> list[str]:
    """Keys of the runners that stand (a sideways push can be judged)."""
    return list(dict.fromkeys(e.key for e in ENTRIES if e.stands))


def takers(option: str) -> list[str]:
    """Keys of the runners that take run option ``option``."""
    return list(dict.fromkeys(e.key for e in ENTRIES if option in e.options))


def check_options(e: Entry, options: Mapping[str, Any]) -> None:
    """Refuse a run option ``e`` does not take (one that asks for something:
    a path, a scale other than 1, a turn, a schedule, plots), naming the
    runners that take it."""
    e.check_options(options, takers)
