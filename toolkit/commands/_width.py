"""The width of what commands print: lines longer than the terminal are wrapped, never cut."""
from __future__ import annotations

import shutil
import textwrap

from toolkit.durations import glued

#: the widest a command prints, whatever the terminal (and when the output is not a terminal)
MAX_WIDTH = 160


def terminal_width() -> int:
    """The terminal's width (``$COLUMNS`` when set; 160 when the output is not a terminal), at most 160."""
    return max(40, min(MAX_WIDTH, shutil.get_terminal_size((MAX_WIDTH, 24)).columns))


def wrapped(text: str, width: int | None = None) -> str:
    """``text`` with every line longer than ``width`` (default :func:`terminal_width`) wrapped at
    spaces; a continuation is indented 4 more than its line. A word longer than the width stays whole."""
    width = width or terminal_width()
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        lead = " " * (len(line) - len(line.lstrip(" ")))
        parts = textwrap.wrap(glued(line), width=width, subsequent_indent=lead + "    ", break_long_words=False,
                              break_on_hyphens=False) or [line]
        out += [part.replace("\u00a0", " ") for part in parts]  # a number and its unit on one line
    return "\n".join(out)
