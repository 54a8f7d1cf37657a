"""Simulation: the controller protocol (with the run settings a controller
may carry), catalogue entries for runners, and the runner that steps MuJoCo,
records the motion, foot contacts and ground forces, and reports falls and
divergences as one event type (``RunEvent``)."""
from gaitforge.sim.catalog import Runner
from gaitforge.sim.controller import DEFAULT_CONTROL_DT, Controller, RunSettings, run_settings
from gaitforge.sim.events import RunEvent
from gaitforge.sim.runner import Rollout, run

__all__ = ["DEFAULT_CONTROL_DT", "Controller", "Rollout", "RunEvent", "RunSettings", "Runner", "run",
           "run_settings"]
