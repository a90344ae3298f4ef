"""Memory: what a turn may remember, as pure rules. Above checks."""
