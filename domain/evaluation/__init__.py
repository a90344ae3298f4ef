"""Evaluation: case formats, scorers, live cases, shadow runs and feedback ratings. The
top room: it may read every other."""
