"""One browser tab's studio session as plain Python state.

A :class:`Session` holds the creature, its stiffness scale and modes, the
recipe being played (Kry09 Eq. 4 terms: mode, amplitude α and offset β in
mass-normalized modal units, phase γ [rad], frequency f̃ [Hz]), the clip made
of it, the playback clock, in physics mode the puppetry simulation, or a
registry runner simulated live (:mod:`gaitforge.studio.runs`), the recipe's
editing (:mod:`gaitforge.studio.recipe_edits`), and the rest-pose preset (:mod:`gaitforge.studio.presets`). Every
button and slider of the page is one method here; each raises
:class:`GaitforgeError` with a one-line message for bad input, so the page,
the tests and a Python user see the same errors.
"""
from __future__ import annotations

import math
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

from gaitforge.api import creatures as gf_creatures, motion as gf_motion
from gaitforge.errors import GaitforgeError
from gaitforge.studio import library as lib
from gaitforge.studio import presets
from gaitforge.studio.playback import Clock
from gaitforge.studio.puppet import PuppetSim
from gaitforge.studio.recipe_edits import FPS, PREVIEW_FREQUENCY, RecipeEdits
from gaitforge.studio.runner_sim import RunnerSim
from gaitforge.studio.runs import Runs
from gaitforge.studio.uploads import UploadFolder

PREVIEW_ROTATION = math.radians(20.0)  # [rad] largest joint rotation of a mode preview
DOWNLOADS = {"BVH": ".bvh", "glTF": ".glb", "MP4": ".mp4"}  # button label → exporter's extension


class Session(Runs, RecipeEdits):
    """The state behind one page (module docstring). ``creature``: a built-in
    name or a creature file path."""

    def __init__(self, creature: str = "dog") -> None:
        self.uploads = UploadFolder()
        self.clock = Clock()
        self.pin = True          # pin stance feet by modal IK (what ``gaitforge animate`` shows)
        self.physics: PuppetSim | None = None  # the running simulation of physics mode
        self.runner: RunnerSim | None = None   # a registry runner simulated live
        self.unpinned = False    # the clip was made live without pinning (see :meth:`refine`)
        self.puppet_sliders = 0  # puppet modes driven by sliders in physics mode
        self.load(creature)

    # ------------------------------------------------------------ creature
    def load(self, name_or_path: str | os.PathLike) -> None:
        """Switch to a built-in creature or a creature file (the CLI's loaders)."""
        self._use(gf_creatures.creature(name_or_path), Path(os.fspath(name_or_path)).name)

    def _use(self, character, label: str, built=None) -> None:
        """Switch to ``character`` (named ``label``; ``built``: the creature as
        loaded, when ``character`` is it in another rest pose): no modes, no
        recipe, nothing simulated."""
        self.stop_physics()
        self.stop_runner()
        self.character = character
        self.built = character if built is None else built
        self.rest_pose = "stand"
        self.label = label
        self.stiffness_scale = 1.0
        self.constraints: tuple[str, ...] = ()
        self.basis: lib.ModalBasis | None = None
        self.descriptions: list[str] = []
        self.recipe: lib.GaitRecipe | None = None
        self.gait: str | None = None
        self.speed: float | None = None
        self.clip: lib.MotionClip | None = None
        self.clock.reset()

    def rest_poses(self) -> list[str]:
        """The rest-pose presets offered (``studio.presets``: stand, crouch, deep crouch)."""
        return presets.names()

    def set_rest_pose(self, name: str) -> None:
        """Make preset ``name`` the creature's rest pose (its springs' rest
        angles too) and compute the modes again about it; the recipe, the
        clip and any simulation are dropped. The presets are made from the
        modes of the creature as loaded."""
        if name not in presets.PRESETS:
            raise GaitforgeError(f"rest pose {name!r} unknown (presets: {', '.join(presets.PRESETS)})")
        built = self.built
        basis = gf_creatures.modes(built, stiffness_scale=1.0)
        q = presets.preset_pose(built, basis, name)
        character = built if presets.PRESETS[name] == 0.0 else presets.with_rest_pose(built, q)
        scale, constraints, label = self.stiffness_scale, self.constraints, self.label
        self._use(character, label, built=built)
        self.stiffness_scale, self.constraints, self.rest_pose = scale, constraints, name
        self.compute_modes()

    def upload(self, filename: str, content: bytes) -> None:
        """Load an uploaded creature file (size-limited, stored in the
        session's temporary folder; ``filename`` only gives the format)."""
        path = self.uploads.store(filename, content)
        name = Path(str(filename)).name
        try:
            self.load(path)
        except GaitforgeError as exc:  # name the user's file, not our temporary copy
            raise GaitforgeError(str(exc).replace(str(path), name)) from None
        self.label = name

    def close(self) -> None:
        """Stop the simulation and remove the uploads."""
        self.stop_physics()
        self.stop_runner()
        self.uploads.close()

    # ------------------------------------------------------------ stiffness and modes
    def set_stiffness(self, scale: float) -> None:
        """Scale every spring by ``scale`` (as ``gaitforge modes
        --stiffness-scale``); computed modes are computed again."""
        from gaitforge import inputs
        scale = inputs.STIFFNESS_SCALE.check("stiffness scale", scale)
        had_modes = self.basis is not None
        self.stiffness_scale = float(scale)
        self.basis, self.descriptions, self.recipe, self.clip, self.gait = None, [], None, None, None
        if had_modes:
            self.compute_modes()

    def set_constraints(self, text: str) -> None:
        """Extra constraints of the modal analysis, as ``gaitforge modes
        --constrain`` writes them, separated by commas or spaces (e.g.
        ``lock:head, pin:front_left_paw``; empty: none); computed modes are
        computed again."""
        from gaitforge.modal import parse_constraint

        if not isinstance(text, str):
            raise GaitforgeError(f"constraints must be text, got {type(text).__name__}")
        items = tuple(t for t in text.replace(",", " ").split() if t)
        for item in items:
            parse_constraint(item, self.character)  # one-line error for a bad one
        had_modes = self.basis is not None
        self.constraints = items
        self.basis, self.descriptions, self.recipe, self.clip, self.gait = None, [], None, None, None
        if had_modes:
            self.compute_modes()

    def tune(self) -> float:
        """Set the stiffness scale at which the creature holds its rest pose
        (joints within 5°) and return it."""
        scale = lib.tune(self.character)
        self.set_stiffness(scale)
        return scale

    def compute_modes(self, count: int | None = None) -> None:
        """Natural vibration modes at the current stiffness scale (frequencies
        [Hz] in ``basis.frequencies``, one description per mode): ``count``
        of them, by default the pool a gait at speed chooses from
        (:func:`~gaitforge.studio.library.pool`: 20, more where the feet have
        soles, as ``gaitforge animate`` computes)."""
        self.stop_physics()
        if count is None:
            count = lib.pool(self.character)
        from gaitforge.modal import parse_constraint

        extra = [parse_constraint(c, self.character) for c in self.constraints]
        self.basis = gf_creatures.modes(self.character, count=count, stiffness_scale=self.stiffness_scale,
                                        constraints=extra)
        self.descriptions = lib.describe(self.character, self.basis)
        self.recipe, self.clip, self.gait = None, None, None

    def mode_lines(self) -> list[str]:
        """``"3  2.41 Hz  bounding (…)"`` per computed mode (0-based index)."""
        if self.basis is None:
            return []
        return [f"{i}  {f:.2f} Hz  {d}" for i, (f, d) in
                enumerate(zip(self.basis.frequencies, self.descriptions))]

    def _need_modes(self) -> lib.ModalBasis:
        if self.basis is None:
            self.compute_modes()
        assert self.basis is not None
        return self.basis

    def preview_mode(self, mode: int) -> None:
        """Play elastic mode ``mode`` alone, oscillating at
        :data:`PREVIEW_FREQUENCY` up to :data:`PREVIEW_ROTATION` (ungrounded)."""
        basis = self._need_modes()
        mode = self._mode_index(mode)
        unit = lib.GaitTerm(mode, 1.0, 0.0, PREVIEW_FREQUENCY)
        peak = lib.peak_rotation(self.character, basis, (unit,))
        amplitude = PREVIEW_ROTATION / peak if peak > 0 else 0.05
        self._set_recipe(self._recipe(f"mode {mode}", (replace(unit, amplitude=amplitude),)), grounded=False)
        self.gait = None

    # ------------------------------------------------------------ gaits
    def gaits(self) -> tuple[str, ...]:
        """The gaits the creature has (one button each)."""
        return lib.gaits(self.character)

    def choose_gait(self, gait: str, speed: float | None = None) -> None:
        """The suggested recipe for ``gait`` at ``speed`` [m/s] through the
        at-speed machinery; without a speed at the gait's natural speed
        (:func:`~gaitforge.studio.library.natural_speed`, what ``gaitforge
        animate`` makes) for a creature as built, or, where it has none or
        about another rest pose (a crouch: its speeds were not measured
        there), the Kry09 clip at the gait's own stride frequency (``speed``
        stays None)."""
        if gait not in self.gaits():
            have = ", ".join(self.gaits()) or "none"
            raise GaitforgeError(f"{self.character.name} has no gait {gait!r} (its gaits: {have})")
        basis = self._need_modes()
        if speed is None and self.character is self.built:  # speeds were measured on creatures as built
            speed = lib.natural_speed(self.character, gait)
        recipe = lib.suggest(self.character, gait, basis, speed)
        self._set_recipe(recipe)
        self.gait, self.speed = gait, speed

    def set_speed(self, speed: float | None) -> None:
        """Forward speed [m/s] of the current gait (None: the gait's own)."""
        if self.gait is None:
            raise GaitforgeError("speed: choose a gait first")
        if speed is not None:
            from gaitforge.motion.recipe import MAX_SPEED
            if isinstance(speed, bool) or not isinstance(speed, (int, float)) or not 0 < speed <= MAX_SPEED:
                raise GaitforgeError(f"speed must be a positive number of m/s up to {MAX_SPEED:g}, got {speed!r}")
        self.choose_gait(self.gait, None if speed is None else float(speed))

    # ------------------------------------------------------------ playback
    def tick(self, wall_dt: float) -> None:
        """Advance the clock by ``wall_dt`` [s] of wall time."""
        self.clock.advance(wall_dt)

    def play(self, playing: bool = True) -> None:
        """Play (or pause) the clip, or the simulation running."""
        self.clock.playing = bool(playing)
        sim = self.sim
        if sim is not None:
            sim.paused = not playing

    def step(self, frames: int = 1) -> None:
        """Pause and show the next frame (``frames`` 1) or the one before
        (-1); a simulation moves on by one frame's time (it cannot go back)."""
        if frames not in (-1, 1):
            raise GaitforgeError(f"step: one frame forward (1) or back (-1), got {frames!r}")
        sim = self.sim
        if sim is not None and frames < 0:
            raise GaitforgeError("a simulation cannot step back (Reset starts it again)")
        self.play(False)
        self.clock.step(frames / FPS)
        if sim is not None:
            sim.advance(1.0 / FPS)

    def pose(self) -> np.ndarray:
        """The generalized coordinates (nq,) shown now: the simulated state in
        physics mode, else the clip's frame at the clock (rest pose without a clip)."""
        sim = self.sim
        if sim is not None:
            return sim.qpos()
        clip = self.clip  # one read: another thread may replace it
        if clip is None:
            return np.asarray(self.character.rest_qpos, float)
        return clip.qpos[self.clock.frame(clip.fps, clip.n_frames)]

    def playing_clip(self) -> lib.MotionClip:
        """What is playing as a clip: the recorded simulation in physics mode, else the recipe's clip."""
        if self.sim is not None:
            clip = self.sim.recorded(FPS)
            if clip is not None:
                return clip
        if self.clip is None:
            raise GaitforgeError("nothing is playing: compute modes and press a gait first")
        return self.clip

    # ------------------------------------------------------------ analysis and files
    def gait_report(self):
        """(footfall table, metrics, gait class) of what is playing, or None without a clip."""
        try:
            clip = self.playing_clip()
        except GaitforgeError:
            return None
        table = lib.footfalls(self.character, clip)
        try:
            metrics, name = lib.gait_metrics(self.character, clip, table)
        except GaitforgeError:
            metrics, name = None, "unknown"
        return table, metrics, name

    def download(self, kind: str, **options) -> tuple[str, bytes]:
        """(file name, bytes) of what is playing, written by the package's own
        exporter: ``kind`` "BVH", "glTF" or "MP4" (options go to the writer, e.g. width)."""
        if kind not in DOWNLOADS:
            raise GaitforgeError(f"download: unknown format {kind!r} (valid: {', '.join(DOWNLOADS)})")
        clip = self.playing_clip()
        ext = DOWNLOADS[kind]
        stem = f"{Path(self.label).stem}-{self.recipe.name if self.recipe else 'pose'}".replace(" ", "_")
        with tempfile.TemporaryDirectory(prefix="gaitforge-studio-out-") as tmp:
            path = Path(tmp) / f"{stem}{ext}"
            gf_motion.save(clip, path, self.character, **options)
            return path.name, path.read_bytes()

    # ------------------------------------------------------------ physics
    def start_physics(self, puppet_modes: int = 3, *, drive_recipe: bool = True) -> None:
        """Switch to physics: the modal controller on the current recipe (if
        any and ``drive_recipe``) plus the puppet (Kry 2012 §4.4): the
        ``puppet_modes`` lowest elastic modes driven by sliders, every
        computed mode by dragging a body; simulated on its own thread. (A
        kinematic recipe is not made for physics: most fall.)"""
        if self.stiffness_scale != 1.0:
            raise GaitforgeError("physics simulates the creature's own springs: set the stiffness scale to 1")
        basis = self._need_modes()
        self.stop_physics()
        self.stop_runner()
        recipe = self.recipe if drive_recipe else None
        # every computed mode is a puppet mode: the sliders drive the first ``puppet_modes``, a drag all
        self.physics = PuppetSim(self.character, basis, recipe, tuple(range(basis.count)))
        self.puppet_sliders = min(puppet_modes, basis.count)
        self.physics.drive_recipe = drive_recipe
        self.physics.start()
        self.play(True)

    def stop_physics(self) -> None:
        """Back to kinematic playback."""
        sim, self.physics = getattr(self, "physics", None), None
        if sim is not None:
            sim.stop()

    @property
    def sim(self) -> PuppetSim | RunnerSim | None:
        """What is simulated now: the runner, the puppetry, or None (kinematic playback)."""
        return self.runner if self.runner is not None else self.physics
