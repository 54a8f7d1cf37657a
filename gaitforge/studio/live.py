"""What the studio's two live simulations share (``puppet.PuppetSim``,
``runner_sim.RunnerSim``): a creature simulated on its own daemon thread,
under one lock, at real time × ``rate``; its recent motion recorded for the
downloads and the footfall diagram; the readings the page polls.

A subclass sets ``model``, ``data``, ``character`` and ``dt`` [s] and
implements ``advance(seconds) -> physics steps`` (under the lock) and
``quantum`` [s], the simulated time it advances in whole units of (a physics
step, or a control interval); it may do work at each turn of the loop in
``_each_turn(now)``.
"""
from __future__ import annotations

import collections
import threading
import time
from typing import Any

import mujoco
import numpy as np

from gaitforge.studio import library as lib

RECORD_FPS = 30.0       # [frames/s] of the recorded motion
RECORD_SECONDS = 10.0   # [s] of simulated motion kept


class LiveSim:
    """The thread, the lock, the recording and the readings (module docstring)."""

    model: mujoco.MjModel
    data: mujoco.MjData
    character: Any
    dt: float
    max_catch_up = 0.2  # [s] of simulated time at most per loop turn: a slower machine falls behind, not over
    thread_name = "gaitforge-live"

    def _start_live(self) -> None:
        """The shared state: call first in the subclass' ``__init__``."""
        self.lock = threading.Lock()
        self.rate = 1.0
        self.paused = False     # the page's Pause: the thread simulates nothing until Play
        self.real_time_factor = 0.0
        self.steps_per_second = 0.0
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._record: collections.deque = collections.deque(maxlen=int(RECORD_SECONDS * RECORD_FPS))
        self._next_record = 0.0

    # ------------------------------------------------------------ what a subclass gives
    @property
    def quantum(self) -> float:
        """[s] the simulated time :meth:`advance` takes in whole units of."""
        return self.dt

    def advance(self, seconds: float) -> int:  # pragma: no cover - each subclass has its own
        raise NotImplementedError

    def _each_turn(self, now: float) -> None:
        """Work at each turn of the loop (``now``: ``time.perf_counter()``); none by default."""

    # ------------------------------------------------------------ recording
    def _record_frame(self) -> None:
        """Keep the pose when a recorded frame falls due (under the lock)."""
        if self.data.time >= self._next_record:
            self._record.append(self.data.qpos.copy())
            self._next_record += 1.0 / RECORD_FPS

    def _clear_record(self) -> None:
        self._record.clear()
        self._next_record = 0.0

    def recorded(self, fps: float) -> lib.MotionClip | None:
        """The last :data:`RECORD_SECONDS` simulated as a clip at
        :data:`RECORD_FPS` (None: under 2 frames)."""
        with self.lock:
            frames = list(self._record)
        if len(frames) < 2:
            return None
        return lib.MotionClip(RECORD_FPS, np.array(frames), self.character.name)

    # ------------------------------------------------------------ reading
    def body_position(self, body: int) -> np.ndarray:
        """World position (3,) [m] of ``body``'s origin now."""
        with self.lock:
            return self.data.xpos[body].copy()

    def qpos(self) -> np.ndarray:
        """A copy of the simulated generalized coordinates (nq,)."""
        with self.lock:
            return self.data.qpos.copy()

    def sim_time(self) -> float:
        with self.lock:
            return float(self.data.time)

    def upright(self) -> float:
        """cos of the root's tilt from vertical (1 upright, below 0.5: fallen)."""
        with self.lock:
            w, x, y, z = self.data.qpos[3:7] if self.model.nq >= 7 else (1.0, 0.0, 0.0, 0.0)
        return float(1.0 - 2.0 * (x * x + y * y))

    # ------------------------------------------------------------ the thread
    def start(self) -> None:
        """Simulate in real time × ``rate`` on a daemon thread until :meth:`stop`."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        self._thread = None

    def _loop(self) -> None:
        last = time.perf_counter()
        window_wall, window_sim, window_steps = last, 0.0, 0
        owed = 0.0  # [s] simulated time asked for but not yet a whole quantum
        while not self._stop.is_set():
            now = time.perf_counter()
            self._each_turn(now)
            owed = 0.0 if self.paused else min(owed + (now - last) * self.rate, self.max_catch_up)
            last = now
            quantum = self.quantum
            if owed >= quantum:
                n = int(owed / quantum)
                window_steps += self.advance(n * quantum)
                owed -= n * quantum
                window_sim += n * quantum
            elapsed = time.perf_counter() - window_wall
            if elapsed >= 1.0:
                # simulated seconds per wall second, against what was asked (rate)
                self.real_time_factor = window_sim / elapsed
                self.steps_per_second = window_steps / elapsed
                window_wall, window_sim, window_steps = time.perf_counter(), 0.0, 0
            time.sleep(0.002)
