"""Simulation: the controller protocol and the runner that steps MuJoCo,
records the motion, foot contacts and ground forces, and detects falls."""
from gaitforge.sim.controller import Controller
from gaitforge.sim.runner import FallEvent, Rollout, run

__all__ = ["Controller", "FallEvent", "Rollout", "run"]
