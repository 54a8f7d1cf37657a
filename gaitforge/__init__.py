"""gaitforge: physics-based character locomotion from natural vibrations and
dynamic control, on MuJoCo."""
from gaitforge.errors import GaitforgeError

__version__ = "0.1.0"
__all__ = ["GaitforgeError", "__version__"]
