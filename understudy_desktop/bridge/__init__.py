"""Where the shell meets the console page. The transport (page_bridge.py: QWebChannel in an
isolated world, then a private MessageChannel to the relay), every message typed
(protocol.py, to_page.py), the shell's one handle on the page (console_port.py), and the
library view pushed to it (library_view.py). What the page asks is answered above, in the
shell (shell/console_asks.py): the bridge carries messages and decides nothing, so the
agent's calls may use it without the bridge depending on them. The page sends commands and
draws; nothing it answers is taken as what happened."""
