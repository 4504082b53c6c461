"""Haggle (Sid Sackson): the scorer, its CLI, and the turn-based negotiation env ``haggle_v0``."""
