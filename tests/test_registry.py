"""physeval.registry: one typed table per kind of thing found by name (tasks, providers, sandbox
backends, metrics), read as examples of what a plugin author meets."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from physeval.errors import UserError
from physeval.registry import Registry, RegistryError


class Shape:
    """What the example registry holds."""


class Square(Shape):
    pass


class Circle(Shape):
    pass


def shapes() -> Registry[type[Shape]]:
    return Registry("shape", "physeval-test.shapes", expects="a subclass of Shape",
                    check=lambda obj: isinstance(obj, type) and issubclass(obj, Shape),
                    normalise=lambda name: name.strip().lower().replace("_", "-"))


def test_a_name_is_found_in_any_spelling_the_registry_normalises() -> None:
    table = shapes()
    table.register("big_square", Square)
    assert table.get("Big-Square") is Square and "BIG_SQUARE" in table
    assert table.names() == ["big-square"]


def test_a_name_registered_twice_names_both_places() -> None:
    table = shapes()
    table.register("square", Square, origin="package one")
    table.register("square", Square)  # the same object again: nothing happens
    with pytest.raises(RegistryError, match=r"shape 'square' is registered twice: by package one and by .*Circle"):
        table.register("square", Circle)
    assert table.get("square") is Square  # the first stays


def test_what_is_not_the_kind_is_refused_where_it_is_registered() -> None:
    table = shapes()
    with pytest.raises(RegistryError, match=r"shape 'triangle': .* is not a subclass of Shape"):
        table.register("triangle", int)  # type: ignore[arg-type]
    with pytest.raises(RegistryError, match="a shape needs a name"):
        table.register("  ", Square)


def test_an_unknown_name_is_a_user_error_with_the_closest_names() -> None:
    table = shapes()
    table.register("square", Square)
    table.register("circle", Circle)
    with pytest.raises(UserError, match=r"unknown shape 'sqare'; did you mean 'square'\? \(known: circle, square\)"):
        table.get("sqare")


def test_a_builtin_is_imported_only_when_it_is_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = shapes()
    holder = types.ModuleType("shapes_for_test")
    holder.TABLE, holder.Square = table, Square  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "shapes_for_test", holder)
    (tmp_path / "hexagon_shape.py").write_text(
        "from shapes_for_test import TABLE, Square\nTABLE.register('hexagon', Square)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    table.builtin("hexagon", "hexagon_shape")
    assert "hexagon" in table.names() and "hexagon_shape" not in sys.modules  # known, not imported
    assert table.get("hexagon") is Square and "hexagon_shape" in sys.modules
    monkeypatch.delitem(sys.modules, "hexagon_shape")


def test_a_builtin_module_that_does_not_register_its_name_is_said_so() -> None:
    table = shapes()
    table.builtin("pentagon", "json")  # importing json registers nothing here
    with pytest.raises(RegistryError, match="json was to register shape 'pentagon' and did not"):
        table.get("pentagon")


def test_a_copy_is_filled_apart_from_the_original() -> None:
    table = shapes()
    table.register("square", Square)
    other = table.copy()
    other.register("circle", Circle)
    assert table.names() == ["square"] and other.names() == ["circle", "square"]
