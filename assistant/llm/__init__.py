"""What the agent needs to run a real language model safely: the grounding check (every figure in an
answer traced to a tool result, the question or the conversation), the protocol guard (tool calls
written as text, corrections, budgets) and the compact tool schemas the model sees. Agent layer:
``agent.py`` uses these; front ends never import them."""
