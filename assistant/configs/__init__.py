"""Config generators (pure functions of a plan): LLaMA-Factory YAML, DeepSpeed JSON, MindSpeed-LLM
launch variables and launch scripts. The tool layer (assistant/tools/configs.py) finds the plan."""

from .plan import TrainingPlan

__all__ = ["TrainingPlan"]
