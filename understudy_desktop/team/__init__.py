"""The team library: signed packs on a folder the team already syncs, reviewed before they run
and withdrawn when their author says so. No server: the folder is the shared store."""
