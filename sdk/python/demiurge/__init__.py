"""Demiurge: the authored-tool SDK lives in demiurge.sdk."""
