"""Tool Packs: taught tools as a file a colleague can import."""
