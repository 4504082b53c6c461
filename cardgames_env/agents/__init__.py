"""Agents that play any env through observations and masks: random and per-game heuristics."""

from .base import Agent, RandomAgent, make_agent

__all__ = ["Agent", "RandomAgent", "make_agent"]
