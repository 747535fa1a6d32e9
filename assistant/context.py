"""The dependencies every tool receives: settings and the knowledge base (never module globals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .kb import KnowledgeBase
from .settings import Settings


@dataclass
class Context:
    settings: Settings
    kb: KnowledgeBase
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def create(cls, settings: Settings | None = None) -> Context:
        settings = settings or Settings()
        return cls(settings=settings, kb=KnowledgeBase.open(settings.knowledge_dir, settings.resolved_cache_dir()))

    @cached_property
    def resolver(self):
        from .resolve import Resolver

        return Resolver(self.kb.models(), self.kb.hardware())
