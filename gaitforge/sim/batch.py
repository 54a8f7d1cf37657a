"""Evaluate many candidates of one problem: in this process, in local worker
processes, or on a Ray cluster.

A *problem* is any picklable callable ``problem(params, seed) -> result``
that is deterministic given its arguments (it may build and cache heavy
state, e.g. a compiled MuJoCo model, on first call; it is sent once to each
worker). Results come back in candidate order, so a batch gives identical
results for any worker count or backend.

MuJoCo's ``rollout`` module was considered for modal control: the moving
spring reference equals an open-loop generalized force K δ(t) (a
``qfrc_applied`` control sequence). It is not used, because it computes the
spring force along another floating-point path than the equilibrium-point
controller, and contact-rich crawling amplifies last-bit differences: the
optimizer's score would then not be replayed exactly by ``gaitforge
simulate``. Parallelism here comes from processes instead.

Seeds: :func:`candidate_seeds` derives one independent seed per candidate
from a base seed and the candidate's global index (``numpy.random.SeedSequence``).
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import InvalidStateError, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, Callable, Sequence

import numpy as np

from gaitforge.errors import GaitforgeError, MujocoWarning

_WORKER_PROBLEM: Any = None  # set in each worker process by _init_worker
_WORKER_WARNINGS: list[str] = []  # MuJoCo's warnings in this worker since the last candidate returned


def _init_worker(problem) -> None:
    """Runs once in each worker: keep MuJoCo's warnings (its C code would
    print them on the terminal and append them to MUJOCO_LOG.TXT in the
    working folder) to send back with each result, then set the problem up."""
    global _WORKER_PROBLEM
    import signal

    import mujoco

    # Ctrl-C reaches the whole process group: the main process stops the
    # pool, so a worker need not stop (and print a traceback) itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    mujoco.set_mju_user_warning(_WORKER_WARNINGS.append)
    _WORKER_PROBLEM = problem
    setup = getattr(problem, "setup", None)  # build heavy state before the first candidate arrives
    if callable(setup):
        setup()


def _call(args) -> tuple[Any, list[str]]:
    """A worker's result and the MuJoCo warnings raised while it was made
    (those of the set-up come with the first)."""
    params, seed = args
    result = _WORKER_PROBLEM(params, seed)
    said = list(_WORKER_WARNINGS)
    _WORKER_WARNINGS.clear()
    return result, said


def _result(returned: tuple[Any, list[str]]) -> Any:
    """A worker's result; its MuJoCo warnings become this process's
    :class:`MujocoWarning` (the CLI counts them into one line)."""
    import warnings

    result, said = returned
    for text in said:
        warnings.warn(f"in a worker process: {text}", MujocoWarning, stacklevel=2)
    return result


def _quiet_cancelled_futures(previous):
    """A ``threading.excepthook`` that drops one known error of Python 3.11's
    process pool: when a worker dies (a SIGTERM to the whole process group)
    after the batch's futures were cancelled, the pool's manager thread tries
    to mark the cancelled futures broken and raises ``InvalidStateError``
    with a traceback (Python 3.12 ignores it there). Every other thread
    error goes to ``previous``."""

    def hook(args) -> None:
        frames, tb = [], args.exc_traceback
        while tb is not None:
            frames.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        if args.exc_type is InvalidStateError and "terminate_broken" in frames:
            return
        previous(args)

    return hook


_HOOK_LOCK = threading.Lock()


def _install_pool_hook() -> None:
    """Install :func:`_quiet_cancelled_futures` once per process."""
    with _HOOK_LOCK:
        if not getattr(threading.excepthook, "_gaitforge_pool", False):
            hook = _quiet_cancelled_futures(threading.excepthook)
            hook._gaitforge_pool = True  # type: ignore[attr-defined]
            threading.excepthook = hook


# Worker processes start by importing the main script again (forkserver): one
# without an ``if __name__ == "__main__":`` guard starts its work anew in each
# worker, which then dies.
_BROKEN = ("a worker process stopped before it returned a result (if this runs from a script, put the script's "
           "work under if __name__ == \"__main__\": — each worker imports the script again; else the machine may "
           "be out of memory); workers=1 runs without them")


MAX_STEPS = 1e10  # physics steps one batch job may ask for: about a day on one core at ~10⁵ steps/s


def check_work(candidates: int, steps_each: float, what: str) -> None:
    """Refuse, before any work, a job of ``candidates`` simulations of
    ``steps_each`` physics steps each past :data:`MAX_STEPS` in all;
    ``what`` names the job and what lowers it in the message."""
    total = float(candidates) * float(steps_each)
    if not total <= MAX_STEPS:
        raise GaitforgeError(f"{what}: {candidates} simulations of {steps_each:.3g} physics steps each is "
                             f"{total:.3g} steps, more than the {MAX_STEPS:.0e} one job may run (about a day "
                             "on one core)")


def candidate_seeds(base_seed: int, start: int, count: int) -> list[int]:
    """Seeds (count,) for candidates ``start .. start + count - 1`` of a run
    seeded with ``base_seed``: each depends only on the base and the index."""
    return [int(np.random.SeedSequence([int(base_seed), start + i]).generate_state(1)[0]) for i in range(count)]


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers) -> int:
    """Validate a worker count (None: all cores)."""
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1 or workers > 1024:
        raise GaitforgeError(f"workers must be an integer from 1 to 1024, got {workers!r}")
    return int(workers)


class BatchEvaluator:
    """Evaluates batches of candidates of ``problem``; use as a context manager.

    workers: local processes (1: in this process; None: all cores). ray:
    None for local processes, ``"auto"`` or a cluster address to use Ray
    (an optional extra: ``pip install gaitforge[cluster]``). ``progress`` is
    called with the number of candidates finished so far in the batch.
    """

    def __init__(self, problem: Callable[[np.ndarray, int], Any], *, workers: int | None = None,
                 ray: str | None = None):
        self.problem = problem
        self.workers = check_workers(workers)
        self.ray_address = ray
        self._pool: ProcessPoolExecutor | None = None
        self._ray: Any = None  # the ray module, imported on demand
        self._remote: Any = None
        self._actors: list = []

    def __enter__(self) -> "BatchEvaluator":
        import multiprocessing

        if getattr(multiprocessing.current_process(), "_inheriting", False):
            # A worker still importing an unguarded main script has reached the
            # script's own call: it cannot start workers, and its traceback would
            # only repeat what the main process reports (see _BROKEN). Leave quietly.
            os._exit(1)
        if self.ray_address is not None:
            self._start_ray()
        elif self.workers > 1:
            # forkserver: workers start clean (no copy of this process' MuJoCo or thread state).
            _install_pool_hook()
            self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("forkserver"),
                                             initializer=_init_worker, initargs=(self.problem,))
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            if exc_type is not None:  # stopping early (an error, Ctrl-C, SIGTERM): running candidates are abandoned
                for process in list((getattr(pool, "_processes", None) or {}).values()):
                    process.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
        for actor in self._actors:  # give the cluster its CPUs back
            self._ray.kill(actor)
        self._actors, self._remote = [], None

    def _start_ray(self) -> None:
        try:
            import ray
        except ImportError:
            raise GaitforgeError("--ray needs the optional dependency ray: pip install 'gaitforge[cluster]'") from None
        if not ray.is_initialized():
            ray.init(address=self.ray_address, ignore_reinit_error=True, log_to_driver=False)

        @ray.remote
        class Worker:
            """Holds the problem, unpickled and set up once (as the local
            pool's initializer does): a task that took the problem as an
            argument would rebuild its model and modes for every candidate."""

            def __init__(self, problem):
                _init_worker(problem)

            def evaluate(self, params, seed):
                return _call((params, seed))

        from ray.util import ActorPool

        count = max(1, int(ray.cluster_resources().get("CPU", 1)))  # one worker per CPU of the cluster
        problem = ray.put(self.problem)
        self._ray = ray
        self._actors = [Worker.remote(problem) for _ in range(count)]  # type: ignore[attr-defined]
        self._remote = ActorPool(self._actors)

    def map(self, candidates: Sequence[np.ndarray], seeds: Sequence[int],
            progress: Callable[[int], None] | None = None) -> list:
        """Results of ``problem(candidates[i], seeds[i])`` in candidate order."""
        if len(candidates) != len(seeds):
            raise GaitforgeError(f"got {len(candidates)} candidates but {len(seeds)} seeds")
        jobs = [(np.asarray(c, float), int(s)) for c, s in zip(candidates, seeds)]
        if self._remote is not None:  # results come back in candidate order
            out = []
            for i, r in enumerate(self._remote.map(lambda a, job: a.evaluate.remote(*job), jobs)):
                out.append(_result(r))
                if progress:
                    progress(i + 1)
            return out
        if self._pool is None:
            out = []
            for i, (c, s) in enumerate(jobs):
                out.append(self.problem(c, s))
                if progress:
                    progress(i + 1)
            return out
        # One job per task: rollouts take ~0.1–1 s, so balance beats saving a few ms of messaging.
        futures = [self._pool.submit(_call, job) for job in jobs]
        out = []
        try:
            for i, future in enumerate(futures):
                out.append(_result(_wait(future)))
                if progress:
                    progress(i + 1)
        except BrokenProcessPool:
            raise GaitforgeError(_BROKEN) from None
        finally:
            for future in futures:
                future.cancel()
        return out


def _wait(future) -> Any:
    """``future``'s result, waited for in short slices: a signal the system
    hands to another thread of this process (the pool's) reaches Python's
    handler only when the main thread next runs Python code, and one long
    wait would keep it from that until the candidate finishes."""
    while True:
        try:
            return future.result(timeout=0.2)
        except TimeoutError:
            continue


def evaluate_batch(problem, candidates: Sequence[np.ndarray], seeds: Sequence[int], *, workers: int | None = None,
                   ray: str | None = None, progress: Callable[[int], None] | None = None) -> list:
    """One-shot :meth:`BatchEvaluator.map` (starts and stops the workers)."""
    with BatchEvaluator(problem, workers=workers, ray=ray) as ev:
        return ev.map(candidates, seeds, progress)
