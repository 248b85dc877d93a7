"""The registration bridge: Python's view of the page's WebMCP tools, over QWebChannel."""
