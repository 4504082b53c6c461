"""Jaipur: a two-player trading card game (rules engine, scoring, encoding, env)."""
