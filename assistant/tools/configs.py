"""Config generation tool (generate_config)."""
