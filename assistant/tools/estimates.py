"""Estimator tools (estimate_training_memory, plan_training, estimate_inference, compare_hardware)."""
