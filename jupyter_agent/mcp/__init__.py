"""MCP servers as tool sources: config, the client manager and the tool adapter.

Nothing here imports the ``mcp`` SDK at import time: servers start on the first prompt
that needs tools, never at ``%load_ext``.
"""
