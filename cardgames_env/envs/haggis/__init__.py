"""Haggis: two-player climbing game with wild face cards and bombs (``haggis_v0``)."""
