"""Understudy Desktop: teach a support routine once; agents and colleagues run it as a tool."""

__version__ = "0.1.0"
APP_NAME = "Understudy"
