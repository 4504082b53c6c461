"""Wrappers over the AEC envs (single-agent views for training)."""
