"""The team library: signed packs on a folder the team already syncs, reviewed before they run
and withdrawn when their author says so. No server: the folder is the shared store. The
service the app runs (library_service.py) is here too, below the shell: the team window, its
menu and Settings (shell/) are drawn on top of it."""
