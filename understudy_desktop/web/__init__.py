"""The page's home in Qt: the understudy:// scheme (scheme.py), the persistent profile
(profile.py), the page class that keeps it on that origin (page.py), the scripts injected at
document creation (scripts.py), and one-time URLs for large payloads (handoff.py). The shell
never sends script text: every message goes through bridge/."""
