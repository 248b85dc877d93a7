"""`python -m understudy_desktop` starts the app."""

import sys

from understudy_desktop.cli import main

sys.exit(main())
