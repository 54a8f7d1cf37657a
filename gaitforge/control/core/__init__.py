"""The control core every controller shares: declarative state layouts
(:mod:`layout`), the RH91 Fig. 4 phase rule (:mod:`phase`), the paper's
control laws Eqs. 1-6 (:mod:`laws`), rotations and gravity
(:mod:`rotations`), and internal errors (:mod:`errors`)."""
from gaitforge.control.core.errors import InternalError
from gaitforge.control.core.layout import Field, Layout
from gaitforge.constants import GRAVITY as G

__all__ = ["Field", "G", "InternalError", "Layout"]
