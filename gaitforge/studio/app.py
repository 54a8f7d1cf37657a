"""The studio's web page: a viser server, one :class:`Session` per browser tab.

Each connecting client gets its own session, GUI and scene (``client.gui``,
``client.scene``) and a render thread that pushes the creature's pose to the
page in one atomic update per frame at :data:`FRAME_RATE`, and the footfall
diagram, gait metrics, frame rate and real-time factor at
:data:`INFO_RATE`. Every callback calls one :class:`Session` method; a
:class:`GaitforgeError` (or any failure) shows as one line in the status.
"""
from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio.footfall_view import diagram
from gaitforge.studio.playback import RATES
from gaitforge.studio.scene import Poser, batches
from gaitforge.studio.session import DOWNLOADS, TERM_FIELDS, Session

FRAME_RATE = 30.0   # [Hz] poses pushed to each page
INFO_RATE = 10.0    # [Hz] footfall diagram, metrics, fps
REFINE_DELAY = 0.25  # [s] after the last term edit, the live clip's stance feet are pinned
RATE_LABELS = {"1/8x": 0.125, "1/4x": 0.25, "1/2x": 0.5, "1x": 1.0, "2x": 2.0, "4x": 4.0, "8x": 8.0}
assert tuple(RATE_LABELS.values()) == RATES


def one_line(exc: BaseException) -> str:
    """An exception as one line: the library's own message, else its type and message."""
    text = str(exc) if isinstance(exc, GaitforgeError) else f"{type(exc).__name__}: {exc}"
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:299] + "…"


class Page:
    """One browser tab: its session, GUI handles, scene handles and render thread."""

    def __init__(self, client, creature: str, names: list[str]):
        self.client = client
        self.session = Session(creature)
        self.lock = threading.RLock()   # one session change at a time
        self.names = names
        self.frames = 0
        self.fps = 0.0
        self.pose_version = 0           # frames pushed since start (tests and benchmarks read it)
        self.edits = 0                  # clips shown since start (a new recipe, creature or edit)
        self._shown_clip: object = None
        self._refine: threading.Timer | None = None
        self._push_lock = threading.Lock()
        self.drag = None                # the drag handle (transform controls) or None
        self.drag_id = 0
        self.dragging = False
        self._listed = "(compute modes)"  # the mode list's value as the server last set it
        self._stop = threading.Event()
        self._report_key: object = None
        self._report = None
        self._build_gui()
        self._build_scene()
        self._thread = threading.Thread(target=self._render_loop, name=f"studio-page-{client.client_id}", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ actions
    def act(self, what: str, *steps: Callable[[], object], busy: str | None = None) -> None:
        """Run ``steps`` in turn under the session lock, reporting ``busy``
        while they run and one line on failure (the steps after it are skipped)."""
        if busy:
            self.status.content = f"**{busy}…**"
        try:
            with self.lock:
                for step in steps:
                    step()
        except Exception as exc:  # every failure reaches the page as one line; the server keeps serving
            self.status.content = f"**Error** ({what}): {one_line(exc)}"
            return
        self.status.content = f"{what}: done"

    # ------------------------------------------------------------ GUI
    def _build_gui(self) -> None:
        gui = self.client.gui
        gui.add_markdown("**gaitforge studio**")
        self.status = gui.add_markdown("ready")
        with gui.add_folder("Creature"):
            self.creature = gui.add_dropdown("Creature", self.names, initial_value=self._initial_name())
            self.upload = gui.add_upload_button("Upload creature", hint="YAML, JSON, MJCF .xml, URDF or BVH")
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
            self.transport = gui.add_button_group("Transport", ["Play", "Pause", "Step", "Reset"])
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
        self.creature.on_update(lambda e: self.act("creature", lambda: s.load(self.creature.value), self._reload))

        def uploaded(e) -> None:
            f = self.upload.value
            self.act(f"upload {f.name}", lambda: s.upload(f.name, f.content), self._reload, busy="loading")
        self.upload.on_upload(uploaded)
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
        self.speed.on_update(lambda e: self.act("speed", lambda: s.set_speed(self.speed.value), self._refresh_terms,
                                                busy="fitting the speed"))
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
        if value[:1].isdigit() and self.session.gait is None and self.session.physics is None:
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
            self.act(gait, lambda: self.session.choose_gait(gait), self._refresh_terms, busy=f"suggesting a {gait}")
        buttons.on_click(chose)

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

    def _edit_term(self, i: int, field: str, value: float) -> None:
        """A term slider moved: the live clip at once (pose pushed without
        waiting for the next frame), the pinned clip a moment later."""
        self.act("term", lambda: self.session.set_term(i, **{field: value}), self.push_pose)
        if self.session.unpinned:
            if self._refine is not None:
                self._refine.cancel()
            self._refine = threading.Timer(REFINE_DELAY, self._refine_now)
            self._refine.daemon = True
            self._refine.start()

    def _refine_now(self) -> None:
        try:
            with self.lock:
                self.session.refine()
        except Exception as exc:  # shown like any other failure
            self.status.content = f"**Error** (pin feet): {one_line(exc)}"

    def _transport(self, what: str) -> None:
        c = self.session.clock
        if what == "Play":
            c.playing = True
        elif what == "Pause":
            c.playing = False
        elif what == "Step":
            self.session.step()
        else:
            c.reset()
            if self.session.physics is not None:
                self.session.physics.reset()

    def _rate(self, rate: float) -> None:
        self.session.clock.set_rate(rate)
        if self.session.physics is not None:
            self.session.physics.rate = rate

    def _pin(self, pin: bool) -> None:
        self.session.pin = bool(pin)
        if self.session.recipe is not None:
            self.session._set_recipe(self.session.recipe)

    def _physics(self) -> None:
        if self.physics.value:
            self.session.start_physics(len(self.puppets), drive_recipe=bool(self.drive_recipe.value))
            sim = self.session.physics
            assert sim is not None
            for i, h in enumerate(self.puppets):
                h.label = f"Puppet mode {sim.puppet[i]}" if i < self.session.puppet_sliders else h.label
        else:
            self.session.stop_physics()
        self._drag_handle()

    def _drag_handle(self) -> None:
        """The drag handle (translation only) on the chosen body while physics runs."""
        if self.drag is not None:
            self.drag.remove()
            self.drag = None
        sim, name = self.session.physics, self.drag_body.value
        if sim is None or name == "(none)":
            return
        body = self.session.character.model.body(name).id
        handle = self.client.scene.add_transform_controls("/world/drag", scale=0.2, disable_rotations=True,
                                                          position=sim.body_position(body), depth_test=False)
        handle.on_drag_start(lambda e: setattr(self, "dragging", True))
        handle.on_drag_end(lambda e: self._drag_end())
        handle.on_update(lambda e: self.act("drag", lambda: self._dragged(body, handle.position)))
        self.drag, self.drag_id = handle, body

    def _drag_end(self) -> None:
        self.dragging = False
        sim = self.session.physics
        if sim is not None:
            sim.release()

    def _dragged(self, body: int, point) -> None:
        sim = self.session.physics
        if sim is None:
            return
        if self.drag_pushes.value:  # a spring from the body to the handle: m g per 0.2 m
            k = self.session.character.mass * 9.81 / 0.2
            sim.push(k * (np.asarray(point) - sim.body_position(body)), seconds=0.1, body=body)
        else:
            sim.hold(body, point)

    def _puppet(self, i: int) -> None:
        sim = self.session.physics
        if sim is None:
            raise GaitforgeError("turn physics on to puppeteer")
        if i < self.session.puppet_sliders:
            sim.set_target(i, float(self.puppets[i].value))

    def _push(self) -> None:
        sim = self.session.physics
        if sim is None:
            raise GaitforgeError("turn physics on to push")
        sim.push((0.0, 0.5 * self.session.character.mass * 9.81, 0.0))

    def _download(self, kind: str) -> None:
        name, content = self.session.download(kind, **({"width": 480, "height": 360} if kind == "MP4" else {}))
        self.client.send_file_download(name, content, save_immediately=True)
        self.last_download = (name, content)

    # ------------------------------------------------------------ scene
    def _build_scene(self) -> None:
        with getattr(self, "_push_lock", threading.Lock()):
            self._build_scene_locked()

    def _build_scene_locked(self) -> None:
        scene = self.client.scene
        for h in getattr(self, "mesh_handles", []):
            h.remove()
        self._shown_clip = None
        model = self.session.character.model
        self.poser = Poser(model)
        self.batches = batches(model)
        pos, quat = self.poser.place(self.session.pose())
        self.mesh_handles = [scene.add_batched_meshes_simple(
            f"/world/creature/shape{k}", b.vertices, b.faces, batched_wxyzs=quat[b.geoms],
            batched_positions=pos[b.geoms], batched_colors=b.color, lod="off", cast_shadow=self._shadows(),
            receive_shadow=self._shadows())
            for k, b in enumerate(self.batches)]
        if not hasattr(self, "grid"):
            # Following moves the world frame (creature and ground) under a camera the user keeps:
            # setting the camera every frame races the page's own camera updates.
            self.world = scene.add_frame("/world", show_axes=False)
            self.grid = scene.add_grid("/world/ground", 200.0, 200.0, cell_size=0.25, section_size=1.0,
                                       shadow_opacity=0.3)
            self.client.camera.position = (1.1, -1.6, 0.8)   # position first: it drags look_at along
            self.client.camera.look_at = (0.0, 0.0, 0.35)

    def _shadows(self) -> bool:
        return bool(self.shadows.value) if hasattr(self, "shadows") else True

    def push_pose(self) -> np.ndarray:
        """Place every geom for the session's pose in one atomic update; returns the pose."""
        with self._push_lock:
            return self._push_pose()

    def _push_pose(self) -> np.ndarray:
        q = self.session.pose()
        pos, quat = self.poser.place(q)
        root = self.poser.root()
        with self.client.atomic():
            for h, b in zip(self.mesh_handles, self.batches):
                h.batched_positions = pos[b.geoms]
                h.batched_wxyzs = quat[b.geoms]
            clip = self.session.clip
            if clip is not self._shown_clip:  # in the same update as the first pose of the new clip
                self._shown_clip = clip
                self.edits += 1
                self.shown.content = f"edit {self.edits}"
            follow = np.array([-root[0], -root[1], 0.0]) if self.follow.value else np.zeros(3)
            if not self.dragging and not np.allclose(follow, self.world.position, atol=1e-4):
                self.world.position = follow
            sim = self.session.physics
            if self.drag is not None and sim is not None and not self.dragging:
                self.drag.position = sim.body_position(self.drag_id)
        self.pose_version += 1
        self.last_pose = q
        return q

    # ------------------------------------------------------------ the render thread
    def _render_loop(self) -> None:
        period = 1.0 / FRAME_RATE
        last = start = time.perf_counter()
        next_info, counted, due = start, 0, start
        window: list[tuple[float, int]] = []
        while not self._stop.is_set():
            now = time.perf_counter()
            self.session.tick(now - last)
            last = now
            try:
                self.push_pose()
                counted += 1
            except Exception:  # a scene rebuilt under us: try again next frame
                pass
            if now >= next_info:
                next_info = now + 1.0 / INFO_RATE
                window.append((now, counted))
                while len(window) > 1 and now - window[0][0] > 1.0:  # frames pushed over the last second
                    window.pop(0)
                span = now - window[0][0]
                self.fps = (counted - window[0][1]) / span if span > 0 else 0.0
                try:
                    self._info()
                except Exception:
                    pass
            due += period  # a fixed schedule: late frames do not push the next ones later
            if due < time.perf_counter() - period:
                due = time.perf_counter()
            time.sleep(max(0.0, due - time.perf_counter()))

    def _info(self) -> None:
        """Footfall diagram with its cursor, gait metrics, fps and real-time factor."""
        s = self.session
        sim = s.physics
        key = (id(s.clip), None if sim is None else int(sim.sim_time()))
        if key != self._report_key:
            self._report_key = key
            self._report = s.gait_report()
            rep = self._report
            if rep is None:
                self.metrics.content = "no clip: press Modes, then a gait"
            else:
                _, m, name = rep
                self.metrics.content = (f"**{name}**" + ("" if m is None else
                                        f" · stride {m.stride_frequency:.2f} Hz · speed {m.speed:.2f} m/s · "
                                        f"duty {np.mean(list(m.duty_factor.values())):.2f} · "
                                        f"flight {m.flight_fraction:.2f} · Froude {m.froude:.2f}"))
        if self._report is not None:
            table = self._report[0]
            clip = s.clip
            cursor = None
            if sim is None and clip is not None:
                cursor = s.clock.frame(clip.fps, clip.n_frames) / clip.n_frames
            self.footfall.image = diagram(table.contact, cursor)
        rtf = ""
        if sim is not None:
            rtf = f" · physics {sim.real_time_factor:.2f}× real time ({sim.steps_per_second:.0f} steps/s)"
            if sim.upright() < 0.5:
                rtf += " · **fallen**: press Reset"
        self.perf.content = f"{self.fps:.0f} fps{rtf}"

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.session.close()


class Studio:
    """The server: a viser server whose every client gets its own :class:`Page`."""

    def __init__(self, creature: str = "dog", host: str = "127.0.0.1", port: int = 8080, verbose: bool = False):
        import viser

        from gaitforge.creatures import registry

        Session(creature).close()  # a bad creature fails here, before serving
        self.creature = creature
        self.names = sorted(registry.names())
        self.pages: dict[int, Page] = {}
        self.server = viser.ViserServer(host=host, port=port, verbose=verbose)
        self.server.scene.set_up_direction("+z")
        self.server.on_client_connect(self._connect)
        self.server.on_client_disconnect(self._disconnect)

    @property
    def url(self) -> str:
        host = self.server.get_host()
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{self.server.get_port()}"

    def _connect(self, client) -> None:
        self.pages[client.client_id] = Page(client, self.creature, self.names)

    def _disconnect(self, client) -> None:
        page = self.pages.pop(client.client_id, None)
        if page is not None:
            page.close()

    def stop(self) -> None:
        for page in list(self.pages.values()):
            page.close()
        self.pages.clear()
        self.server.stop()
