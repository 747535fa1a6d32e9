"""LLM-facing tools. Importing this package registers every tool module on ``REGISTRY``."""

# isort: off
# Each module registers its tools on import; the order here is the order tools are listed
# (table look-ups first, then the estimator, then config generation), so keep it unsorted.
from .registry import REGISTRY, Registry, Tool, is_error
from . import tables  # noqa: F401  (resolve_model, training_recipe, min_cards, ...)
from . import estimates  # noqa: F401  (estimate_training_memory, plan_training, ...)
from . import configs  # noqa: F401  (generate_config)
from . import time_tools  # noqa: F401  (estimate_training_time)
# isort: on

__all__ = ["REGISTRY", "Registry", "Tool", "is_error"]
