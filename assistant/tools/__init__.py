"""LLM-facing tools. Importing this package registers every tool module on ``REGISTRY``."""

from .registry import REGISTRY, Registry, Tool, is_error

# Each module registers its tools on import; the order here is the order tools are listed.
from . import tables  # noqa: E402,F401  (resolve_model, training_recipe, min_cards, ...)
from . import estimates  # noqa: E402,F401  (estimate_training_memory, plan_training, ...)
from . import configs  # noqa: E402,F401  (generate_config)

__all__ = ["REGISTRY", "Registry", "Tool", "is_error"]
