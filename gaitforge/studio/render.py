"""The page's render thread: the session's clock advanced by wall time,
the pose pushed at :data:`FRAME_RATE` on a fixed schedule, and the footfall
diagram, gait metrics, frame rate and real-time factor at :data:`INFO_RATE`."""
from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from gaitforge.studio.footfall_view import diagram
from gaitforge.studio.page_base import PageBase

FRAME_RATE = 30.0   # [Hz] poses pushed to each page
INFO_RATE = 10.0    # [Hz] footfall diagram, metrics, fps


class RenderLoop(PageBase):
    """The frame loop of a page (module docstring)."""

    _stop: threading.Event
    _report_key: object
    _report: Any

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
        sim = s.sim
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
            runner = s.runner
            if runner is not None:
                rtf += f" · {runner.entry.label} at {runner.speed:g} m/s" + (
                    f", turning {runner.turn_rate:g} rad/s" if runner.turn_rate else "")
            fall = getattr(runner, "fall", None)
            if fall or sim.upright() < 0.5:
                rtf += f" · **fallen**{f' ({fall})' if fall else ''}: press Reset"
        self.perf.content = f"{self.fps:.0f} fps{rtf}"

