"""Renderers: a :class:`~annoscore.result.Result` in, text out.  Nothing below prints."""

from annoscore.report.generic import render, render_csv, render_json, render_markdown, render_table

__all__ = ["render", "render_csv", "render_json", "render_markdown", "render_table"]
