"""Constants every layer shares, each defined once here (the bottom layer,
beside the errors and the compiled-kernel plumbing)."""

GRAVITY = 9.81  # [m/s²] the creatures' models' gravity (MuJoCo's default), for weights, Froude numbers and flights
MODE_POOL = 20  # the lowest elastic modes a gait mixes (Kry09 §4.3): the heuristics' candidates, the studio's "Modes"
