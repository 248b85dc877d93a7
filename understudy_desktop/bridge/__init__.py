"""Where the shell meets the console page. The transport (page_bridge.py: QWebChannel in an
isolated world, then a private MessageChannel to the relay), every message typed
(protocol.py), and the shell's one handle on the page (console_port.py); then the two places
the page's side of the library is served: what the page asks (console_asks.py: a publish, a
library button, a Run, a call through its WebMCP mirror, each decided by the shell) and the
library view pushed to it (library_view.py). The page sends commands and draws; nothing it
answers is taken as what happened."""
