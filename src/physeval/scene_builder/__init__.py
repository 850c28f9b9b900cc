"""Growing scene datasets: SimuScene's construction pipeline (``physeval build scenes``).

From a taxonomy of domains and concepts to SimuScene-format records, with a model at each
step and every step inspectable and resumable::

    basic -> compose -> filter -> plausibility -> questions -> review -> split -> solve -> export

See :mod:`physeval.scene_builder.pipeline` for the flow, :mod:`physeval.scene_builder.calls` for how model
replies are asked for, cached, parsed and retried, and :mod:`physeval.scene_builder.store` for what is
kept. Importing this package loads nothing heavy; the stages import what they need.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "STAGES",
    "BuildModels",
    "BuildOptions",
    "BuildResult",
    "export_build",
    "import_review",
    "load_taxonomy",
    "run_build",
]


def __getattr__(name: str) -> Any:
    if name in ("BuildOptions", "BuildModels", "BuildResult", "STAGES", "run_build", "export_build"):
        from physeval.scene_builder import pipeline

        return getattr(pipeline, name)
    if name == "load_taxonomy":
        from physeval.scene_builder.taxonomy import load_taxonomy

        return load_taxonomy
    if name == "import_review":
        from physeval.scene_builder.human import import_review

        return import_review
    raise AttributeError(name)
