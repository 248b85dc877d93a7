"""Procedures on disk: taught tools and recordings as versioned JSON files in the data dir,
kept in step with the page's IndexedDB, so nothing a person taught depends on the browser
profile alone."""
