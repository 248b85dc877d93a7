"""The Qt side a person sees, and the flows behind it, on the Qt thread.

- The window: ``main_window`` builds the window, its menus and status bar and wires them; what
  the menus do is in the flow modules, which the window calls.
- The flows: ``queue_files`` (Open queue…, Save queue as…), ``pack_actions`` (Import pack…,
  Export pack…), ``person_commands`` (the person's commands, undo and teaching from the page),
  ``console_asks`` (what the page asks: a publish, a library button, a Run, a call through its
  WebMCP mirror, each decided here).
- The queue as the shell keeps it: ``queue_keeper`` (the saved copy, what the console starts
  with), ``queue_choices`` (each helpdesk's columns and values, remembered), ``storage_watch``.
- Dialogs and menus: the queue preview, packs, Connect an agent, Settings, About; the helpdesk
  (``helpdesk_*``: the link, its menu, dialogs and changes to choose) and the team library
  (``team_*``).
- Helpers: ``background`` (work off the Qt thread), ``menu_action``, ``screen_fit``, ``theme``,
  ``file_open`` (files the system hands the running app).
"""
