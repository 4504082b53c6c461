"""Gong Zhu (拱猪, "Chinese Hearts", "Chase the Pig"): four-player trick-taking game."""
