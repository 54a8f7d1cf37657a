"""The page's panel: every folder, slider and button of the GUI, wired
each to one :class:`~gaitforge.studio.session.Session` call through
:meth:`PageBase.act`, and the lists the session's state fills (modes,
gaits, terms, bodies to drag)."""
from __future__ import annotations

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio.controls import Controls
from gaitforge.studio.footfall_view import diagram
from gaitforge.studio.page_base import RATE_LABELS, from_page
from gaitforge.studio.playback import RATES
from gaitforge.studio.recipe_edits import TERM_FIELDS
from gaitforge.studio.session import DOWNLOADS

assert tuple(RATE_LABELS.values()) == RATES


class Panels(Controls):
    """Builds and refreshes the GUI of a page (module docstring)."""

    def _build_gui(self) -> None:
        gui = self.client.gui
        gui.add_markdown("**gaitforge studio**")
        self.status = gui.add_markdown("ready")
        with gui.add_folder("Creature"):
            self.creature = gui.add_dropdown("Creature", self.names, initial_value=self._initial_name())
            self.upload = gui.add_upload_button("Upload creature", hint="YAML, JSON, MJCF .xml, URDF or BVH")
            self.rest_pose = gui.add_dropdown("Rest pose", self.session.rest_poses(), initial_value="stand",
                                              hint="the pose the springs hold; the modes are computed about it")
            self.stiffness = gui.add_slider("Stiffness scale", 0.05, 5.0, 0.05, 1.0)
            self.tune = gui.add_button("Tune")
        with gui.add_folder("Modes"):
            self.constraints = gui.add_text("Constraints", "", hint="extra modal constraints, e.g. lock:head "
                                            "(stable head), pin:front_left_paw, loop:left_hand:right_hand")
            self.modes_button = gui.add_button("Modes")
            self.mode_list = gui.add_dropdown("Mode", ["(compute modes)"])
            self.preview = gui.add_button("Preview mode")
            self.add_mode = gui.add_button("Add mode to recipe")
        with gui.add_folder("Gait"):
            self.gait_folder = gui.add_folder("Gaits")
            self.gait_buttons = None
            self.speed = gui.add_slider("Gait speed (m/s)", 0.1, 6.0, 0.05, 1.0)
            self.reset_recipe = gui.add_button("Reset recipe")
        self.terms_folder = gui.add_folder("Terms")
        self.term_handles: list = []
        with gui.add_folder("Playback"):
            self.transport = gui.add_button_group("Transport", ["Play", "Pause", "Back", "Step", "Reset"])
            self.rate = gui.add_dropdown("Playback speed", list(RATE_LABELS), initial_value="1x")
            self.follow = gui.add_checkbox("Follow camera", True, hint="keep the creature in view: the world "
                                                                        "slides under it, the camera stays")
            self.pin = gui.add_checkbox("Pin stance feet", True)
            self.shadows = gui.add_checkbox("Shadows", True, hint="off: faster drawing on software WebGL")
        with gui.add_folder("Physics"):
            self.drive_recipe = gui.add_checkbox("Drive the recipe", True,
                                                 hint="the modal controller plays the recipe; off: puppetry only")
            self.physics = gui.add_checkbox("Physics (puppetry)", False)
            self.puppets = [gui.add_slider(f"Puppet mode {i}", -1.0, 1.0, 0.01, 0.0) for i in range(3)]
            self.push = gui.add_button("Push sideways")
            self.drag_body = gui.add_dropdown("Drag body", ["(none)"], hint="a handle on this body: drag it to pose "
                                                                           "the creature (or to push it)")
            self.drag_pushes = gui.add_checkbox("Drag pushes", False, hint="the handle pulls the body with a spring "
                                                                           "force instead of posing it")
        self._build_runner_gui()
        with gui.add_folder("Download"):
            self.downloads = {kind: gui.add_button(f"Download {kind}") for kind in DOWNLOADS}
        with gui.add_folder("Gait metrics"):
            self.footfall = gui.add_image(diagram(np.zeros((1, 0), bool), None), label="Footfalls", format="png")
            self.metrics = gui.add_markdown("no clip")
        self.perf = gui.add_markdown("")
        self.shown = gui.add_markdown("edit 0")  # counts the clips shown: ties a slider move to its pose
        self._wire()
        self._refresh_gaits()
        self._drag_options()

    def _initial_name(self) -> str:
        name = self.session.character.name
        return name if name in self.names else self.names[0]

    def _wire(self) -> None:
        s = self.session
        self.creature.on_update(from_page(lambda: self.act("creature", lambda: s.load(self.creature.value),
                                                           self._reload)))

        def uploaded(e) -> None:
            f = self.upload.value
            self.act(f"upload {f.name}", lambda: s.upload(f.name, f.content), self._reload, busy="loading")
        self.upload.on_upload(uploaded)
        self.rest_pose.on_update(from_page(lambda: self.act(
            "rest pose", lambda: s.set_rest_pose(self.rest_pose.value), self._refresh_modes,
            busy="computing modes about the pose")))
        self.stiffness.on_update(lambda e: self.act("stiffness", lambda: s.set_stiffness(self.stiffness.value),
                                                    self._refresh_modes))
        self.tune.on_click(lambda e: self.act("tune", s.tune, self._refresh_modes, self._sync,
                                              busy="tuning stiffness"))
        self.constraints.on_update(lambda e: self.act("constraints",
                                                      lambda: s.set_constraints(self.constraints.value),
                                                      self._refresh_modes, busy="computing modes"))
        self.mode_list.on_update(lambda e: self._mode_selected())
        self.modes_button.on_click(lambda e: self.act("modes", s.compute_modes, self._refresh_modes,
                                                      busy="computing modes"))
        self.preview.on_click(lambda e: self.act("preview", lambda: s.preview_mode(self._mode()),
                                                 self._refresh_terms))
        self.add_mode.on_click(lambda e: self.act("add mode", lambda: s.add_mode(self._mode()), self._refresh_terms))
        self.speed.on_update(from_page(lambda: self.act("speed", lambda: s.set_speed(self.speed.value),
                                                         self._refresh_terms, busy="fitting the speed")))
        self.reset_recipe.on_click(lambda e: self.act("reset", s.reset_recipe, self._refresh_terms))
        self.transport.on_click(lambda e: self.act(e.target.value.lower(), lambda: self._transport(e.target.value)))
        self.rate.on_update(lambda e: self.act("playback speed", lambda: self._rate(RATE_LABELS[self.rate.value])))
        self.pin.on_update(lambda e: self.act("pin", lambda: self._pin(self.pin.value)))
        self.shadows.on_update(lambda e: self.act("shadows", self._build_scene))
        self.physics.on_update(lambda e: self.act("physics", self._physics, busy="starting physics"))
        for i, h in enumerate(self.puppets):
            h.on_update(lambda e, i=i: self.act("puppet", lambda: self._puppet(i)))
        self.push.on_click(lambda e: self.act("push", self._push))
        self.drag_body.on_update(lambda e: self.act("drag body", self._drag_handle))
        for kind, button in self.downloads.items():
            button.on_click(lambda e, kind=kind: self.act(f"download {kind}", lambda: self._download(kind),
                                                          busy=f"writing {kind}"))

    def _mode_selected(self) -> None:
        """Selecting a mode in the list previews it (unless a gait is playing)."""
        value = self.mode_list.value
        if value == self._listed:  # our own reset of the list, not a choice
            return
        self._listed = value
        if value[:1].isdigit() and self.session.gait is None and self.session.sim is None:
            self.act("preview", lambda: self.session.preview_mode(self._mode()), self._refresh_terms)

    def _mode(self) -> int:
        text = self.mode_list.value
        if not text[:1].isdigit():
            raise GaitforgeError("compute modes first (press Modes)")
        return int(text.split()[0])

    def _reload(self) -> None:
        """After a new creature: new scene, no modes, its gait buttons."""
        self._build_scene()
        self._refresh_modes()
        self._refresh_gaits()
        self._drag_options()
        self.constraints.value = ""
        self._sync()

    def _drag_options(self) -> None:
        m = self.session.character.model
        names = [m.body(b).name for b in range(1, m.nbody) if m.body(b).name]
        ends = [n for n in names if any(w in n for w in ("paw", "foot", "hand", "head"))]
        self.drag_body.options = ["(none)"] + ends + [n for n in names if n not in ends]
        self.drag_body.value = "(none)"

    def _sync(self) -> None:
        self.stiffness.value = min(max(self.session.stiffness_scale, 0.05), 5.0)
        self.rest_pose.value = self.session.rest_pose  # its callback ignores the server's own setting

    def _refresh_modes(self) -> None:
        lines = self.session.mode_lines() or ["(compute modes)"]
        self._listed = lines[0]
        self.mode_list.options = lines
        self.mode_list.value = lines[0]
        self._refresh_terms()

    def _refresh_gaits(self) -> None:
        if self.gait_buttons is not None:
            self.gait_buttons.remove()
            self.gait_buttons = None
        gaits = self.session.gaits()
        if not gaits:
            return
        with self.gait_folder:
            buttons = self.client.gui.add_button_group("Gait", [g.capitalize() for g in gaits])
        self.gait_buttons = buttons

        def chose(e) -> None:
            gait = e.target.value.lower()
            self.act(gait, lambda: self.session.choose_gait(gait), self._show_speed, self._refresh_terms,
                     busy=f"suggesting a {gait}")
        buttons.on_click(chose)

    def _show_speed(self) -> None:
        """The speed slider shows the speed the gait was made at (set from the
        server: its callback, for changes made in the page, does not run)."""
        if self.session.speed is not None:
            self.speed.value = float(min(max(self.session.speed, self.speed.min), self.speed.max))

    def _refresh_terms(self) -> None:
        """One sub-folder of sliders per term of the recipe (rebuilt when terms come or go)."""
        for h in self.term_handles:
            h.remove()
        self.term_handles = []
        terms = self.session.terms
        if self.session.basis is None:
            return
        with self.terms_folder:
            for i, t in enumerate(terms):
                folder = self.client.gui.add_folder(f"Term {i}: mode {t.mode}", expand_by_default=i < 2)
                self.term_handles.append(folder)
                with folder:
                    big = max(0.5, 3 * abs(t.amplitude), 3 * abs(t.offset))
                    ranges = {"amplitude": (-big, big, big / 500), "phase": (0.0, 2 * np.pi, 0.01),
                              "frequency": (0.0, max(6.0, 2 * t.frequency), 0.01),
                              "offset": (-big, big, big / 500)}
                    labels = {"amplitude": "amplitude", "phase": "phase (rad)", "frequency": "frequency (Hz)",
                              "offset": "offset"}
                    for field in TERM_FIELDS:
                        lo, hi, step = ranges[field]
                        value = float(np.clip(getattr(t, field) % (2 * np.pi) if field == "phase"
                                              else getattr(t, field), lo, hi))
                        h = self.client.gui.add_slider(f"{labels[field]} {i}", lo, hi, step, value)
                        h.on_update(lambda e, i=i, field=field, h=h: self._edit_term(i, field, float(h.value)))
                    remove = self.client.gui.add_button(f"Remove term {i}")
                    remove.on_click(lambda e, i=i: self.act("remove", lambda: self.session.remove_term(i),
                                                            self._refresh_terms))

