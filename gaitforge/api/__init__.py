"""The one-import Python API: ``import gaitforge as gf``.

Thin, typed calls into the layers that own the work; every command of the
command line parses its flags, calls these and prints::

    import gaitforge as gf
    dog = gf.creature("dog")                     # or a .yaml/.json/.xml/.urdf/.bvh file
    basis = gf.modes(dog, count=8)               # natural vibration modes (ModalBasis)
    clip = gf.animate(dog, "trot", seconds=4)    # kinematic gait (MotionClip)
    print(gf.metrics(clip, dog))                 # duty factors, phases, speed, class
    gf.save(clip, "trot.glb", dog)               # .glb .bvh .mp4 .gif .npz .csv
    character, rollout = gf.run("raibert_quadruped", "bound", speed=2.0, seconds=20)
    character, rollout = gf.run("gorilla", "ds_walk", speed=0.3, seconds=60, turn_rate=0.1)
    character, rollout = gf.run("worm", seconds=5)  # its modal crawl; gf.runners() lists every runner
    table = gf.push("gorilla", "trot", speeds=[0.1, 0.3])   # {speed: largest force [N]}
    gf.push("gorilla", "ds_walk", speeds=[0.3], force=200.0, gains="thesis")  # one force, per-phase verdicts

Every function checks its arguments before any work (the ranges are
:mod:`gaitforge.inputs`', the ones the command line holds its flags to) and
raises :class:`gaitforge.GaitforgeError` (one-line message) for bad input;
a result no valid input makes (a clip whose joints turn round and round) is
a :class:`gaitforge.errors.ResultError`.
"""
from __future__ import annotations

from gaitforge.api.creatures import (EXPORT_EXTENSIONS, bodies, constraint, creature, creature_name, creature_names,
                                     creature_source, describe, export, mode_sheet, modes, save_png, still, summary,
                                     tune)
from gaitforge.api.modal import (RAMP, ModalRun, PhysicsSummary, cyclic_tolerance, hand_set, landscape, modal_physics,
                                 modal_problem, modal_recipe, optimize_gait, optimize_settings, physics_summary,
                                 save_landscape, save_modal_traces, simulate, sketch, sketch_recipe, start_direction,
                                 suggest_recipe)
from gaitforge.api.motion import (TYPICAL, Animation, VideoSettings, animate, animation, at_typical_speed, footfalls,
                                  gait_class, gait_diagram, gait_names, gait_speeds, gaits, load, load_recipe, metrics,
                                  motion_formats, preset, presets, save, save_recipe, typical_froudes, video_settings,
                                  write_clip)
from gaitforge.api.simulation import (RaibertReport, balance, balance_goal, balance_scans, published_pushes, push,
                                      push_results, push_speeds, raibert_experiments, raibert_report, run, run_plots,
                                      runner, runner_names, runners, save_raibert_report)
from gaitforge.control.entry import Entry, Run
from gaitforge.creatures.character import Character
from gaitforge.modal import ModalBasis
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.metrics import GaitMetrics
from gaitforge.sim import Rollout

__all__ = ["creature", "creature_names", "creature_name", "creature_source", "summary", "bodies", "still",
           "save_png", "export", "EXPORT_EXTENSIONS", "modes", "constraint", "describe", "mode_sheet", "tune",
           "TYPICAL", "Animation", "animate", "animation", "metrics", "gait_class", "footfalls", "gait_diagram",
           "gaits", "gait_names", "gait_speeds", "typical_froudes", "presets", "preset", "at_typical_speed",
           "save", "load", "motion_formats", "write_clip", "video_settings", "VideoSettings", "load_recipe",
           "save_recipe",
           "runners", "runner", "runner_names", "push_speeds", "published_pushes", "run", "run_plots", "push",
           "push_results", "balance", "balance_goal", "balance_scans", "raibert_experiments", "raibert_report",
           "save_raibert_report", "RaibertReport",
           "hand_set", "modal_recipe", "suggest_recipe", "modal_physics", "physics_summary", "PhysicsSummary",
           "simulate", "ModalRun", "RAMP", "save_modal_traces", "landscape", "save_landscape", "cyclic_tolerance",
           "modal_problem", "start_direction", "optimize_settings", "optimize_gait", "sketch", "sketch_recipe",
           "Character", "ModalBasis", "MotionClip", "GaitMetrics", "Rollout", "Entry", "Run"]
