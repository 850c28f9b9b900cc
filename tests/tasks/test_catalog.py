"""The catalog the command line reads without importing tasks says what the task classes say."""

from __future__ import annotations

import pytest

from physeval.flow.spec import DEFAULT_TASK
from physeval.tasks.catalog import BUILTIN_TASKS, canonical_task_name
from physeval.tasks.catalog import DEFAULT_TASK as CATALOG_DEFAULT
from physeval.tasks.registry import task_classes


def test_catalog_matches_the_registered_classes() -> None:
    classes = task_classes()
    assert sorted(BUILTIN_TASKS) == sorted(name for name in classes if name in BUILTIN_TASKS)
    for name, entry in BUILTIN_TASKS.items():
        cls = classes[name]
        assert (cls.__module__, cls.track, bool(cls.dynamic), cls.description) == \
            (entry.module, entry.track, entry.dynamic, entry.description), name
    assert CATALOG_DEFAULT == DEFAULT_TASK


@pytest.mark.parametrize(("given", "canonical"), [
    ("bank-numeric", "bank-numeric"), ("bank_numeric", "bank-numeric"), ("physeval/bank_numeric", "bank-numeric"),
    ("PHYBENCH_POISON", "phybench-poison"), ("my_task.py:Mine", "my_task.py:Mine"),
])
def test_canonical_names(given: str, canonical: str) -> None:
    assert canonical_task_name(given) == canonical
