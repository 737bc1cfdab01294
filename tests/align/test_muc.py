"""The MUC aligner's grouping of objects by class (annoscore.align.muc)."""

from __future__ import annotations

from annoscore.align.muc import _by_class
from annoscore.templates import TemplateObject


def _object(class_name: str, number: str) -> TemplateObject:
    return TemplateObject(f"{class_name}-1-{number}", class_name, "1", number, ())


def test_a_class_written_in_two_cases_is_one_list_in_file_order() -> None:
    objects = [_object("ENTITY", "1"), _object("Event", "2"), _object("entity", "3")]
    objects.append(_object("ENTITY", "4"))
    grouped = _by_class(objects)
    assert {name: [o.number for o in found] for name, found in grouped.items()} == {
        "entity": ["1", "3", "4"],
        "event": ["2"],
    }
