"""Readers (and where useful writers) of every file format, into :mod:`annoscore.model` objects.

Readers validate and raise :class:`~annoscore.errors.InputError` naming file and line; they know
nothing about scoring.
"""
