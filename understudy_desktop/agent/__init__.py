"""The agent endpoint: an MCP server (streamable HTTP on loopback) for the page's tools."""
