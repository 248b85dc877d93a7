"""The one way Python builds JavaScript text: every value crosses as escaped JSON.

The app itself never sends script text to the page (it speaks typed QWebChannel messages,
bridge/protocol.py), so this lives with the tests, the benchmarks and the tools, which do
evaluate script in the page. A ticket subject containing `</script>` or U+2028 must not change
what a script does.
"""

from __future__ import annotations

import json
import re
from typing import Any

_IDENTIFIER_PATH = re.compile(r"^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$")


def js_literal(value: Any) -> str:
    """A JavaScript expression that evaluates to `value` (JSON-compatible data only)."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    # ensure_ascii already escapes U+2028/2029; `<` and `>` are escaped so the text is also
    # safe inside an inline <script> block and can never close one.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def js_call(function_path: str, *args: Any) -> str:
    """`window.a.b(args…)` for a fixed, dotted function name and escaped arguments."""
    if not _IDENTIFIER_PATH.match(function_path):
        raise ValueError(f"not a plain dotted JavaScript name: {function_path!r}")
    rendered = ",".join(js_literal(a) for a in args)
    return f"{function_path}({rendered})"
