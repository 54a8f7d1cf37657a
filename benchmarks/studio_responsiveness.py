"""Responsiveness of the studio (``gaitforge studio``) in a real browser
(Debian's chromium under Playwright, software WebGL), each figure beside a
baseline measured in the same run:

- slider → pose: from the browser's first input event on a term's amplitude box
  to the page showing the edit marker that travels in the same atomic
  update as the first pose of the new clip (browser clock at both ends;
  the new pose is drawn on the next animation frame). Median, 90th
  percentile. Baseline: the server's own share (callback → pose pushed).
- frames: poses pushed per second to the page (server), and animation
  frames per second the browser drew meanwhile.
- puppetry physics: the dog in physics mode with a puppet slider held,
  the server process pinned to one core while it serves the page: simulated
  seconds per wall second (real-time factor), steps per second, against
  bare ``mj_step`` of the same model and step on that core.
- registry runners (the skills dog's trot, the RH91 quadruped's trot, the
  kangaroo's hop) live in the page's session on that core: real-time factor
  while serving, and how fast the same runner steps unthrottled.

    MUJOCO_GL=egl .venv/bin/python benchmarks/studio_responsiveness.py
"""
from __future__ import annotations

import os
import socket
import statistics
import time

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
EDITS = 20
WATCH = """() => {
  window.__inputs = []; window.__edits = {};
  document.addEventListener('input', e => window.__inputs.push(performance.now()), true);
  new MutationObserver(() => {
    const m = document.body.innerText.match(/edit (\\d+)/);
    if (m && !(m[1] in window.__edits)) window.__edits[m[1]] = performance.now();
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
  window.__frames = 0; const tick = () => { window.__frames++; requestAnimationFrame(tick); }; tick();
}"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(pred, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.005)
    raise SystemExit("timed out")


def _box(page, label):
    return page.locator(f'xpath=//label[text()="{label}"]/ancestor::div[contains(@class,"mantine-Flex-root")][1]'
                        f'//input[not(@type="hidden")]').first


def bare_steps_per_second(model, seconds: float = 3.0) -> float:
    d = mujoco.MjData(model)
    mujoco.mj_forward(model, d)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(200):
            mujoco.mj_step(model, d)
        n += 200
    return n / (time.perf_counter() - t0)


def _edits(page, served, box, base):
    """Slider-to-pose latencies [s] over EDITS edits, the server's share [s],
    then poses pushed and frames drawn per second over 5 s."""
    latencies, server_share = [], []
    for k in range(EDITS):
        time.sleep(0.8)  # the previous edit's pinned clip (REFINE_DELAY later) has landed
        edits = served.edits
        n_inputs = page.evaluate("window.__inputs.length")
        sent = time.perf_counter()
        box.fill(f"{base * (1.5 if k % 2 == 0 else 1.0):.5f}")  # one input event; the page sends it at once
        box.press("Enter")
        _wait(lambda: served.edits > edits)
        server_share.append(time.perf_counter() - sent)
        n = served.edits
        # the page may draw a later marker first (the pinned clip REFINE_DELAY later) when it is slow
        first = f"Math.min(...Object.keys(window.__edits).filter(k => +k >= {n}).map(k => window.__edits[k]))"
        page.wait_for_function(f"() => isFinite({first})", timeout=10000)
        t_in = page.evaluate(f"window.__inputs[{n_inputs}]")  # the edit's first input event
        t_out = page.evaluate(first)
        latencies.append((t_out - t_in) / 1000.0)
    v0, f0, t0 = served.pose_version, page.evaluate("window.__frames"), time.perf_counter()
    time.sleep(5.0)
    dt = time.perf_counter() - t0
    pushed = (served.pose_version - v0) / dt
    drawn = (page.evaluate("window.__frames") - f0) / dt

    return latencies, server_share, pushed, drawn


RUNNERS = ("dog trot", "raibert_quadruped trot", "kangaroo hop")  # registry runners timed live


def _runner(page, served, label: str):
    """(label, physics step [s], control interval [s], real-time factor while
    the page is served (the loop holds real time), unthrottled × real time)
    of a registry runner started in the page's session."""
    s = served.session
    with served.lock:
        s.start_runner(label)
    sim = s.runner
    time.sleep(2.0)  # compile and settle
    sim0, w0 = sim.sim_time(), time.perf_counter()
    time.sleep(5.0)
    live = (sim.sim_time() - sim0) / (time.perf_counter() - w0)
    with served.lock:
        s.play(False)  # the thread stops simulating; the same runner stepped here as fast as it goes
    w1 = time.perf_counter()
    sim.advance(2.0)
    free = 2.0 / (time.perf_counter() - w1)
    with served.lock:
        s.stop_runner()
    return label, sim.dt, sim.control_dt, live, free


def main() -> None:
    from playwright.sync_api import sync_playwright

    from gaitforge.studio.app import Studio

    core = sorted(os.sched_getaffinity(0))[0]
    studio = Studio("dog", port=_port())
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(studio.url)
            page.get_by_role("button", name="Modes", exact=True).wait_for(timeout=30000)
            _wait(lambda: studio.pages)
            served = next(iter(studio.pages.values()))
            s = served.session
            page.get_by_role("button", name="Modes", exact=True).click()
            page.get_by_text("modes: done").first.wait_for(timeout=60000)
            page.get_by_role("button", name="Trot", exact=True).click()
            page.get_by_text("trot: done").first.wait_for(timeout=60000)
            page.evaluate(WATCH)
            box = _box(page, "amplitude 0")
            base = s.terms[0].amplitude
            rows = []
            for shadows in (True, False):
                if not shadows:
                    page.get_by_label("Shadows").uncheck()
                    page.get_by_text("shadows: done").first.wait_for(timeout=30000)
                rows.append((shadows, *_edits(page, served, box, base)))

            # puppetry: the whole server on one core while it serves the page
            for tid in os.listdir("/proc/self/task"):  # every thread of the server, and those it starts
                os.sched_setaffinity(int(tid), {core})
            page.get_by_label("Drive the recipe").uncheck()
            page.get_by_label("Physics (puppetry)").check()
            page.get_by_text("physics: done").first.wait_for(timeout=60000)
            sim = s.physics
            sim.set_target(0, 0.5)
            time.sleep(2.0)  # compile and settle
            sim0, w0 = sim.sim_time(), time.perf_counter()
            time.sleep(10.0)
            rtf = (sim.sim_time() - sim0) / (time.perf_counter() - w0)
            steps = rtf / sim.dt
            page.get_by_label("Physics (puppetry)").uncheck()
            page.get_by_text("physics: done").first.wait_for(timeout=60000)
            bare = bare_steps_per_second(sim.model)  # still serving the page
            w1 = time.perf_counter()
            sim.advance(2.0)  # the same puppetry, unthrottled, on that core: the headroom over real time
            headroom = 2.0 / (time.perf_counter() - w1)
            runners = [_runner(page, served, label) for label in RUNNERS]
            browser.close()
    finally:
        studio.stop()
    for shadows, latencies, server_share, pushed, drawn in rows:
        ms = sorted(1000 * x for x in latencies)
        print(f"shadows {'on ' if shadows else 'off'}: slider -> pose in the browser: median "
              f"{statistics.median(ms):.0f} ms, 90th percentile {ms[int(0.9 * len(ms)) - 1]:.0f} ms over {len(ms)} "
              f"edits (server share, fill -> pose pushed: median {1000 * statistics.median(server_share):.0f} ms); "
              f"{pushed:.1f} poses pushed per second, the browser drew {drawn:.1f} frames per second")
    print(f"puppetry physics (dog, {1000 * sim.dt:g} ms steps, server on core {core}): real-time factor {rtf:.2f} "
          f"({steps:.0f} steps/s; the loop holds real time); unthrottled {headroom:.2f}x real time "
          f"({headroom / sim.dt:.0f} steps/s) vs bare mj_step {bare:.0f} steps/s on that core "
          f"(ratio {headroom / sim.dt / bare:.2f})")
    for label, dt, control_dt, live, free in runners:
        print(f"runner {label} ({1000 * dt:g} ms physics steps, {1000 * control_dt:g} ms control, server on core "
              f"{core}): real-time factor {live:.2f} while serving the page; unthrottled {free:.2f}x real time")


if __name__ == "__main__":
    main()
