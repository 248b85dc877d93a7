"""The agent endpoint: an MCP server (streamable HTTP on loopback, and understudy-mcp's
stdio relay) for the tools the shell's library holds. What is listed and what a call does
are decided on the Qt thread (calls.py) from the approved definitions; a run is applied by
the shell's model (model/), and the page is not in a call's path."""
