"""Editing the recipe a studio session plays: its terms' amplitude, phase,
frequency and offset, adding and removing modes, resetting to the
suggestion, and the clip made of it (live without pinning, then pinned by
:meth:`RecipeEdits.refine`). A mixin of
:class:`~gaitforge.studio.session.Session`."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio import library as lib

FPS = 30.0              # [frames/s] of the clips the studio plays and exports
CLIP_SECONDS = 4.0      # [s] about this long, rounded to whole cycles so the clip loops
PREVIEW_FREQUENCY = 1.0  # [Hz] a mode preview oscillates this slowly, whatever its natural frequency
TERM_FIELDS = ("amplitude", "phase", "frequency", "offset")


class RecipeEdits:
    """The recipe-editing buttons and sliders of a session (module docstring)."""

    character: Any
    basis: lib.ModalBasis | None
    recipe: lib.GaitRecipe | None
    clip: lib.MotionClip | None
    gait: str | None
    speed: float | None
    pin: bool
    unpinned: bool
    physics: Any
    clock: Any
    stiffness_scale: float
    constraints: tuple[str, ...]

    def _need_modes(self) -> lib.ModalBasis:
        raise NotImplementedError

    def choose_gait(self, gait: str, speed: float | None = None) -> None:
        raise NotImplementedError

    @property
    def terms(self) -> tuple[lib.GaitTerm, ...]:
        return () if self.recipe is None else self.recipe.terms

    def set_term(self, index: int, **values: float) -> None:
        """Change term ``index``'s amplitude, phase [rad], frequency [Hz] or
        offset live (the clip is made again)."""
        terms = list(self.terms)
        if not 0 <= index < len(terms):
            raise GaitforgeError(f"term {index}: the recipe has {len(terms)} terms")
        unknown = [k for k in values if k not in TERM_FIELDS]
        if unknown:
            raise GaitforgeError(f"term field {unknown[0]!r} unknown (valid: {', '.join(TERM_FIELDS)})")
        t = terms[index]
        new = {f: float(values.get(f, getattr(t, f))) for f in TERM_FIELDS}
        terms[index] = lib.GaitTerm(t.mode, new["amplitude"], new["phase"], new["frequency"], new["offset"])
        assert self.recipe is not None
        # live: grounded without the modal-IK pinning (milliseconds); :meth:`refine` pins it afterwards
        self._set_recipe(replace(self.recipe, terms=tuple(terms)), pin=False)

    def add_mode(self, mode: int) -> None:
        """Add a term driving elastic mode ``mode`` (amplitude 0, at the
        recipe's base frequency, or 1 Hz without a recipe)."""
        basis = self._need_modes()
        mode = self._mode_index(mode)
        if mode in {t.mode for t in self.terms}:
            raise GaitforgeError(f"mode {mode} is in the recipe already")
        freq = self.recipe.base_frequency if self.recipe is not None else PREVIEW_FREQUENCY
        term = lib.GaitTerm(mode, 0.0, 0.0, freq)
        recipe = (replace(self.recipe, terms=self.recipe.terms + (term,)) if self.recipe is not None
                  else self._recipe("custom", (term,)))
        del basis
        self._set_recipe(recipe)

    def remove_term(self, index: int) -> None:
        """Drop term ``index`` (a recipe keeps at least one)."""
        terms = list(self.terms)
        if not 0 <= index < len(terms):
            raise GaitforgeError(f"term {index}: the recipe has {len(terms)} terms")
        if len(terms) == 1:
            raise GaitforgeError("a recipe keeps at least one term")
        del terms[index]
        assert self.recipe is not None
        self._set_recipe(replace(self.recipe, terms=tuple(terms)))

    def reset_recipe(self) -> None:
        """Back to the suggested recipe of the current gait (or no recipe)."""
        if self.gait is not None:
            self.choose_gait(self.gait, self.speed)
        else:
            self.recipe, self.clip = None, None
            self.clock.reset()

    def _mode_index(self, mode) -> int:
        assert self.basis is not None
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)) or not 0 <= mode < self.basis.count:
            raise GaitforgeError(f"mode must be an index from 0 to {self.basis.count - 1}, got {mode!r}")
        return int(mode)

    def _recipe(self, name: str, terms) -> lib.GaitRecipe:
        assert self.basis is not None
        return lib.GaitRecipe(name=name, creature=self.character.name, terms=tuple(terms),
                              stiffness_scale=self.stiffness_scale, constraints=self.constraints)

    def _set_recipe(self, recipe: lib.GaitRecipe, *, grounded: bool = True, pin: bool | None = None) -> None:
        clip = self._clip_of(recipe, grounded, self.pin if pin is None else pin)
        self.recipe, self.clip = recipe, clip
        self.unpinned = grounded and self.pin and pin is False
        if self.physics is not None and self.physics.drive_recipe:
            self.physics.set_recipe(recipe)

    def _clip_of(self, recipe: lib.GaitRecipe, grounded: bool, pin: bool) -> lib.MotionClip:
        assert self.basis is not None
        f = min((t.frequency for t in recipe.terms if t.frequency > 0), default=0.0)
        seconds = max(1, round(CLIP_SECONDS * f)) / f if f > 0 else 1.0
        return lib.synthesize(self.character, self.basis, recipe, seconds, FPS, grounded=grounded, pin=pin)

    def refine(self) -> bool:
        """Pin the stance feet of a clip made live by :meth:`set_term` (when
        pinning is on); True if the clip was replaced. Safe to call from
        another thread: a recipe changed meanwhile is left alone."""
        recipe = self.recipe
        if recipe is None or not getattr(self, "unpinned", False):
            return False
        clip = self._clip_of(recipe, True, True)
        if self.recipe is not recipe:
            return False
        self.clip, self.unpinned = clip, False
        return True
