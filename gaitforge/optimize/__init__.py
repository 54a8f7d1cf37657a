"""Optimization of modal controllers by shooting: CMA-ES with the cyclic
constraint by the method of multipliers (Kry 2012 §4.5), and the worm
landscape of Kry 2012 §4.3.

Public surface: :class:`ModalProblem` (parameters → recipe → simulated
:class:`Score`; the parameter vector laid out by :class:`Layout`: terms,
bounce harmonics, modal impulses, initial conditions), :func:`optimize` with :class:`Settings` → :class:`Result`,
:func:`landscape` → :class:`Landscape`.
"""
from gaitforge.optimize.cmaes import FAILED, Result, Settings, optimize
from gaitforge.optimize.landscape import Landscape, landscape
from gaitforge.optimize.layout import Layout
from gaitforge.optimize.problem import OBJECTIVES, ModalProblem, Score

__all__ = ["FAILED", "OBJECTIVES", "Landscape", "Layout", "ModalProblem", "Result", "Score", "Settings", "landscape",
           "optimize"]
