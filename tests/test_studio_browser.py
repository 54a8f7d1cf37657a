"""The studio end to end in a real browser: Debian's chromium driven by
Playwright against a real viser server in this process (so that the test
can read the server's session state as well as the page). Screenshots are
kept under the test's tmp folder and printed."""
from __future__ import annotations

import shutil
import socket
import time

import numpy as np
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not found: `make test` installs Debian's "
                                                         "chromium (apt-get install chromium)")
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(predicate, timeout: float = 30.0, what: str = "condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def studio():
    from gaitforge.studio.app import Studio
    s = Studio("worm", port=_free_port())  # the test picks the dog
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _open(browser, studio):
    page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    before = set(studio.pages)
    page.goto(studio.url)
    # 60 s: under SwiftShader with both cores busy (the other test worker, stray processes) the
    # page's first controls once took over 30 s to show, in both browser tests of one CI run
    page.get_by_role("button", name="Modes", exact=True).wait_for(timeout=60000)
    new = _wait(lambda: set(studio.pages) - before, what="the server to see the tab")
    return page, studio.pages[new.pop()]


def _status(page, text: str, timeout: float = 45000) -> None:
    page.get_by_text(text).first.wait_for(timeout=timeout)


def _number_input(page, label: str):
    # normalize-space(.): viser breaks long labels with <wbr> after a slash
    return page.locator(f'xpath=//label[normalize-space(.)="{label}"]'
                        '/ancestor::div[contains(@class,"mantine-Flex-root")][1]//input[not(@type="hidden")]').first


def _project(cam, point, width: int = 1280, height: int = 800):
    """Pixel (x, y) of a world point [m] in the page's 3D view (pinhole camera of viser's state)."""
    pos, look, up = np.asarray(cam.position), np.asarray(cam.look_at), np.asarray(cam.up_direction)
    f = (look - pos) / np.linalg.norm(look - pos)
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    u = np.cross(r, f)
    d = np.asarray(point, float) - pos
    t = np.tan(cam.fov / 2)
    return ((d @ r / (d @ f * t * width / height) + 1) / 2 * width, (1 - d @ u / (d @ f * t)) / 2 * height)


def _canvas_shot(page, path):
    page.screenshot(path=str(path), clip={"x": 0, "y": 150, "width": 930, "height": 600})
    from PIL import Image
    return np.asarray(Image.open(path).convert("RGB"), float)


def test_studio_in_the_browser(studio, browser, tmp_path):
    shots = []
    page, served = _open(browser, studio)
    session = served.session

    # pick the dog
    page.locator('xpath=//label[text()="Creature"]/ancestor::div[contains(@class,"mantine-Flex-root")][1]'
                 '//input[not(@type="hidden")]').first.click()
    page.get_by_role("option", name="dog", exact=True).click()
    _status(page, "creature: done")
    assert session.character.name == "dog"

    page.get_by_role("button", name="Modes", exact=True).click()
    _status(page, "modes: done")
    assert " Hz " in page.locator('xpath=//label[text()="Mode"]/ancestor::div[contains(@class,"mantine-Flex-root")]'
                                  '[1]//input[not(@type="hidden")]').first.input_value()

    # selecting a mode in the list previews it
    page.locator('xpath=//label[text()="Mode"]/ancestor::div[contains(@class,"mantine-Flex-root")][1]'
                 '//input[not(@type="hidden")]').first.click()
    page.get_by_role("option", name=session.mode_lines()[1], exact=True).click()
    _status(page, "preview: done")
    assert session.recipe.name == "mode 1"

    page.get_by_role("button", name="Trot", exact=True).click()
    _status(page, "trot: done")
    assert session.gait == "trot" and session.recipe.name == "trot"
    _wait(lambda: "**trot**" in served.metrics.content, what="the gait metrics")

    # pause, then move a term's amplitude slider: the pose on the server and the picture change
    page.get_by_role("button", name="Pause", exact=True).click()
    _status(page, "pause: done")
    time.sleep(0.5)
    shots.append(tmp_path / "1-trot-paused.png")
    a = _canvas_shot(page, shots[-1])
    pose_a = served.last_pose.copy()
    old = session.terms[1].amplitude
    box = _number_input(page, "amplitude 1")
    box.fill(f"{3 * old:.4f}")
    box.press("Enter")
    _wait(lambda: abs(session.terms[1].amplitude - 3 * old) < 1e-3, what="the amplitude to reach the server")
    v = served.pose_version
    _wait(lambda: served.pose_version > v + 3, what="new frames")
    assert np.abs(served.last_pose[7:] - pose_a[7:]).max() > 1e-3
    time.sleep(0.5)
    shots.append(tmp_path / "2-amplitude-tripled.png")
    b = _canvas_shot(page, shots[-1])
    assert np.mean(np.abs(a - b) > 30) > 0.001, "the picture did not change"

    # download a BVH and read it back
    with page.expect_download(timeout=60000) as info:
        page.get_by_role("button", name="Download BVH", exact=True).click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    from bvh import Bvh
    mocap = Bvh(path.read_text())
    assert path.name == "dog-trot.bvh" and mocap.nframes == session.clip.n_frames

    # puppetry: physics on (the kinematic trot is not made for physics: puppet modes only),
    # a puppet slider moves the simulated creature
    page.get_by_label("Drive the recipe").uncheck()
    page.get_by_label("Physics (puppetry)").check()
    _status(page, "physics: done")
    sim = _wait(lambda: session.physics, what="the simulation")
    time.sleep(1.0)
    rest = sim.qpos()
    box = _number_input(page, f"Puppet mode {sim.puppet[0]}")
    box.fill("1")
    box.press("Enter")
    _wait(lambda: sim.filter.target[0] != 0.0, what="the puppet target")
    time.sleep(1.0)
    assert np.abs(sim.qpos()[7:] - rest[7:]).max() > 0.05
    assert sim.upright() > 0.5
    _wait(lambda: "real time" in served.perf.content, what="the real-time factor")
    shots.append(tmp_path / "3-puppetry.png")
    page.screenshot(path=str(shots[-1]))

    # drag a paw with the mouse (standing again first): the handle's arrow along +x, 12 cm forward;
    # the simulated paw follows
    box.fill("0")
    box.press("Enter")
    page.get_by_role("button", name="Reset", exact=True).click()
    _status(page, "reset: done")
    page.locator('xpath=//label[text()="Drag body"]/ancestor::div[contains(@class,"mantine-Flex-root")][1]'
                 '//input[not(@type="hidden")]').first.click()
    page.get_by_role("option", name="front_left_paw", exact=True).click()
    _status(page, "drag body: done")
    paw = served.drag_id
    # Up to three tries: under software WebGL the page sometimes takes the press on another part of
    # the gizmo (a plane handle or the y arrow; seen twice in a fresh CI clone, cause not established),
    # and the handle then moves elsewhere. The check is that dragging the x arrow moves it along x.
    for attempt in range(3):
        time.sleep(1.5)
        start = sim.body_position(paw)
        at = start + np.asarray(served.world.position)
        a, c = (_project(served.client.camera, at + [dx, 0.0, 0.0]) for dx in (0.14, 0.26))
        page.mouse.move(*a)
        page.mouse.down()
        track = []
        for k in range(1, 11):
            page.mouse.move(a[0] + (c[0] - a[0]) * k / 10, a[1] + (c[1] - a[1]) * k / 10)
            track.append(sim.body_position(paw))
            time.sleep(0.05)
        for _ in range(24):  # the mouse held still: the puppet keeps reaching (closed loop)
            track.append(sim.body_position(paw))
            time.sleep(0.05)
        # read the handle while the button is still down: once the page reports the drag's end, the
        # handle snaps back onto the (possibly stumbling) paw
        grabbed = served.dragging
        goal = np.asarray(served.drag.position)
        shots.append(tmp_path / f"4-drag-paw-{attempt}.png")
        page.screenshot(path=str(shots[-1]))
        page.mouse.up()
        if grabbed and goal[0] - start[0] > 0.06:
            break
        print(f"drag try {attempt}: grabbed {grabbed}, handle {goal}, paw at {start}")
        page.get_by_role("button", name="Reset", exact=True).click()
        _status(page, "reset: done")
    assert grabbed, "the mouse did not grab the handle's arrow"
    assert goal[0] - start[0] > 0.06, ("the handle did not move with the mouse", goal, start)
    # the paw reaches the handle (held there long, a standing dog may lose its balance)
    closest = min(float(np.linalg.norm(goal - x)) for x in track)
    assert closest < 0.6 * float(np.linalg.norm(goal - start)), (closest, goal, start)
    page.get_by_label("Physics (puppetry)").uncheck()
    _status(page, "physics: done")

    # a broken upload: one line in the page, the server keeps serving
    broken = tmp_path / "broken.yaml"
    broken.write_text("bones: [unclosed\n")
    with page.expect_file_chooser() as chooser:
        page.get_by_role("button", name="Upload creature", exact=True).click()
    chooser.value.set_files(str(broken))
    _status(page, "Error (upload broken.yaml)")
    shots.append(tmp_path / "5-broken-upload.png")
    page.screenshot(path=str(shots[-1]))
    assert session.character.name == "dog"
    assert "broken.yaml: line 2" in served.status.content and "/tmp" not in served.status.content
    page.get_by_role("button", name="Play", exact=True).click()
    _status(page, "play: done")

    # a second tab has its own session
    other, served2 = _open(browser, studio)
    assert served2.session is not session and served2.session.basis is None
    other.close()
    page.close()
    print("\nstudio screenshots:\n" + "\n".join(str(p) for p in shots))


def _choose(page, label: str, option: str) -> None:
    page.locator(f'xpath=//label[normalize-space(.)="{label}"]/ancestor::div[contains(@class,"mantine-Flex-root")][1]'
                 '//input[not(@type="hidden")]').first.click()
    page.get_by_role("option", name=option, exact=True).click()


def _yaw(q) -> float:
    w, x, y, z = q[3:7]
    return float(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def test_shortcuts_and_runners_in_the_browser(studio, browser, tmp_path):
    page, served = _open(browser, studio)
    session = served.session

    # keyboard shortcuts (viser's command hotkeys) make the same calls as the buttons; the first press
    # is repeated until the page has bound its keys (the server's state says when one arrived)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(10):
        page.keyboard.press("ArrowUp")
        try:
            _wait(lambda: session.clock.rate > 1.0, timeout=3.0, what="ArrowUp to speed playback up")
            break
        except AssertionError:
            continue
    rate = session.clock.rate
    label = "2x" if rate == 2.0 else f"{rate:g}x"
    _wait(lambda: _number_input(page, "Playback speed").input_value() == label, what="the page's playback speed")
    page.keyboard.press("ArrowDown")
    _wait(lambda: session.clock.rate == rate / 2, what="ArrowDown to slow it down")
    page.keyboard.press("Space")
    _wait(lambda: not session.clock.playing, what="space to pause")
    _status(page, "pause: done")
    t = session.clock.time
    page.keyboard.press("ArrowRight")
    _wait(lambda: session.clock.time > t, what="the right arrow to step")
    page.keyboard.press("ArrowLeft")
    _wait(lambda: session.clock.time == pytest.approx(t), what="the left arrow to step back")
    page.keyboard.press("Space")
    _wait(lambda: session.clock.playing, what="space to play again")
    # typed into a field, the keys are text, not shortcuts
    box = _number_input(page, "Stiffness scale")
    box.fill("1")
    rate = session.clock.rate
    box.press("ArrowUp")   # a number field's own step, not the playback speed
    box.press("Enter")
    _status(page, "stiffness: done")
    assert session.clock.rate == rate

    # a rest-pose preset: the shown pose crouches, the modes are computed about it
    _choose(page, "Creature", "dog")
    _status(page, "creature: done")
    _wait(lambda: served.last_pose.shape == session.character.rest_qpos.shape, what="the dog's pose")
    stand = served.last_pose.copy()
    _choose(page, "Rest pose", "crouch")
    _status(page, "rest pose: done")
    assert session.rest_pose == "crouch" and session.basis is not None
    _wait(lambda: served.last_pose[2] < stand[2] - 0.03, what="the crouch in the pushed pose")

    # the skills dog trots live (from its own standing pose); speed and turn reach the running controller
    _choose(page, "Runner", "dog trot")
    _status(page, "runner dog trot: done")
    sim = _wait(lambda: session.runner, what="the runner")
    assert sim.entry.label == "dog trot" and session.character is session.built
    _wait(lambda: _number_input(page, "Rest pose").input_value() == "stand", what="the rest pose list")
    _wait(lambda: sim.qpos()[0] > 0.3, timeout=90, what="the dog to trot forward")
    box = _number_input(page, "Runner speed (m/s)")
    box.fill("1.2")
    box.press("Enter")
    _status(page, "runner speed: live")
    assert sim.speed == pytest.approx(1.2) and session.runner is sim
    box = _number_input(page, "Turn rate (rad/s)")
    box.fill("0.4")
    box.press("Enter")
    _status(page, "turn rate: live")
    yaw = _yaw(sim.qpos())
    _wait(lambda: abs(_yaw(sim.qpos()) - yaw) > 0.3, timeout=90, what="the dog to turn")
    _wait(lambda: "dog trot at 1.2 m/s, turning 0.4 rad/s" in served.perf.content, what="the runner line")
    shots = [tmp_path / "runner-dog-trot.png"]
    page.screenshot(path=str(shots[-1]))
    # the drag handle goes on a running runner's body
    _choose(page, "Drag body", "head")
    _status(page, "drag body: done")
    assert served.drag is not None and served.drag_id == session.character.model.body("head").id

    # an RH91 runner brings its own creature; it does not turn on command: one line, the slider back at 0
    _choose(page, "Runner", "raibert_biped run")
    _status(page, "runner raibert_biped run: done")
    assert session.character.name == "raibert_biped"
    _wait(lambda: _number_input(page, "Creature").input_value() == "raibert_biped", what="the creature list")
    box = _number_input(page, "Turn rate (rad/s)")
    box.fill("0.3")
    box.press("Enter")
    try:
        _status(page, "Error (turn rate): raibert_biped does not turn on command")
    except Exception:
        raise AssertionError(f"status: {served.status.content}; turn {served.runner_turn.value}") from None
    _wait(lambda: served.runner_turn.value == 0.0, what="the turn slider back at 0")
    box = _number_input(page, "Runner speed (m/s)")
    box.fill("2")
    box.press("Enter")
    _status(page, "runner speed: restarted")
    assert session.runner.speed == pytest.approx(2.0)
    shots.append(tmp_path / "runner-biped.png")
    page.screenshot(path=str(shots[-1]))
    page.get_by_role("button", name="Stop runner", exact=True).click()
    _status(page, "stop runner: done")
    assert session.runner is None
    page.close()
    print("\nrunner screenshots:\n" + "\n".join(str(p) for p in shots))
