"""Front ends: thin adapters over the tool registry and the agent (CLI, web, API/MCP, Slack)."""
