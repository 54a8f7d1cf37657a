"""Controllers that drive simulated creatures (physics on MuJoCo)."""
