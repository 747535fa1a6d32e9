"""LLM sizing assistant: vendor tables, estimator and config generators behind one tool registry."""

__version__ = "0.1.0"
