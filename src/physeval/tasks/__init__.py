"""Benchmarks as tasks, and the registry that names them on the command line."""

from physeval.tasks.base import GradeContext, Task, TaskError
from physeval.tasks.registry import get_task, register_task, task_classes, task_names

__all__ = ["GradeContext", "Task", "TaskError", "get_task", "register_task", "task_classes", "task_names"]
