"""Helpers shared by the test trees (a live server process, external services)."""
