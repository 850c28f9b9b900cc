"""The taxonomy a build draws concepts from: domains and their concepts, as data.

The default is ``taxonomy.yaml`` in this package (five domains, 52 concepts, the domain sizes of
SimuScene's Table 5); a user taxonomy is a YAML file of the same shape (``--taxonomy FILE``).
Each concept gets a *slug* (lower case, dashes) that keys every record made from it, so the
same concept always yields the same record ids and seeds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from physeval.errors import DataError, DataNotFoundError, OptionError

__all__ = ["DEFAULT_TAXONOMY", "Concept", "Taxonomy", "load_taxonomy", "slugify"]

DEFAULT_TAXONOMY = Path(__file__).resolve().parent / "taxonomy.yaml"


@dataclass(frozen=True)
class Concept:
    """One concept of the taxonomy.

    Attributes:
        domain: The domain it belongs to, as the taxonomy writes it (``mechanics``).
        name: The concept's name (``projectile motion``).
        description: Optional guidance passed to the generator.
        slug: ``name`` in lower case with dashes, unique in the taxonomy; the prefix of record ids.
    """

    domain: str
    name: str
    description: str = ""

    @property
    def slug(self) -> str:
        """The concept's id part: lower case, alphanumerics and dashes."""
        return slugify(self.name)


@dataclass(frozen=True)
class Taxonomy:
    """Domains in file order, each with its concepts in file order."""

    concepts: tuple[Concept, ...]
    source: str = ""

    @property
    def domains(self) -> tuple[str, ...]:
        """The domain names in the order they first appear."""
        return tuple(dict.fromkeys(c.domain for c in self.concepts))

    def select(self, names: Iterable[str] | None = None, *, limit: int | None = None) -> list[Concept]:
        """The concepts named (by name or slug, any case; a domain name selects all of its concepts),
        in taxonomy order, then the first ``limit`` of them. An unknown name is an :class:`OptionError`."""
        chosen = list(self.concepts)
        if names:
            wanted = [n.strip() for n in names if n.strip()]
            keys = {slugify(n) for n in wanted}
            domains = {slugify(d) for d in self.domains}
            unknown = [n for n in wanted if slugify(n) not in domains | {c.slug for c in self.concepts}]
            if unknown:
                raise OptionError(f"unknown concept or domain {', '.join(map(repr, unknown))} in the taxonomy "
                                  f"{self.source or ''}; e.g. {', '.join(repr(c.name) for c in self.concepts[:3])}")
            chosen = [c for c in chosen if c.slug in keys or slugify(c.domain) in keys]
        if limit is not None:
            if limit < 1:
                raise OptionError("--limit must be at least 1")
            chosen = chosen[:limit]
        return chosen

    def counts(self) -> dict[str, int]:
        """Concepts per domain, in domain order."""
        return {d: sum(1 for c in self.concepts if c.domain == d) for d in self.domains}


def slugify(text: str) -> str:
    """``"Newton's laws of motion"`` -> ``"newtons-laws-of-motion"``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("'", "")).strip("-")


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Read a taxonomy YAML (the shipped one when ``path`` is ``None``).

    Raises :class:`DataNotFoundError` for a missing file and :class:`DataError` for one that is
    not ``{domains: [{name, concepts: [...]}]}`` or repeats a concept slug.
    """
    file = Path(path) if path is not None else DEFAULT_TAXONOMY
    if not file.is_file():
        raise DataNotFoundError(f"taxonomy file {file} not found")
    try:
        doc = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise DataError(f"{file}: not valid YAML: {exc}") from exc
    domains = doc.get("domains") if isinstance(doc, dict) else None
    if not isinstance(domains, list) or not domains:
        raise DataError(f"{file}: expected a mapping with a non-empty 'domains' list")
    concepts: list[Concept] = []
    for d_pos, domain in enumerate(domains):
        if not isinstance(domain, dict) or not isinstance(domain.get("name"), str) \
                or not isinstance(domain.get("concepts"), list):
            raise DataError(f"{file}: domain {d_pos} needs a 'name' and a 'concepts' list")
        for c_pos, item in enumerate(domain["concepts"]):
            concepts.append(_concept(item, domain["name"].strip(), f"{file}: {domain['name']} concept {c_pos}"))
    seen: dict[str, str] = {}
    for concept in concepts:
        if not concept.slug:
            raise DataError(f"{file}: concept {concept.name!r} has no letters or digits")
        if concept.slug in seen:
            raise DataError(f"{file}: concepts {seen[concept.slug]!r} and {concept.name!r} share the id "
                            f"{concept.slug!r}")
        seen[concept.slug] = concept.name
    return Taxonomy(tuple(concepts), str(file))


def _concept(item: Any, domain: str, where: str) -> Concept:
    if isinstance(item, str) and item.strip():
        return Concept(domain, item.strip())
    if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"].strip():
        description = item.get("description") or ""
        if not isinstance(description, str):
            raise DataError(f"{where}: 'description' must be text")
        return Concept(domain, item["name"].strip(), description.strip())
    raise DataError(f"{where}: expected a name or a mapping with 'name'")
