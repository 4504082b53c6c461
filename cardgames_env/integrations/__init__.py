"""Adapters to other RL libraries (each behind its own optional extra)."""
