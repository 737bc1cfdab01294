"""Deciding which gold item goes with which predicted item.

Alignment never depends on the order of the input: ties are broken by content, not position.
"""
