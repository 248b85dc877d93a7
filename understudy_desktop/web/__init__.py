"""Everything between Qt and the page: URL scheme, profile, page class, JS calls."""
