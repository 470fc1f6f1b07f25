"""The spelling of incidents: how ``--incident SPEC`` text is split into kinds and parameters.

Grammar (whitespace around the separators is allowed)::

    spec     := incident ( "+" incident )*        applied left to right
    incident := KIND ":" params | KIND "(" params ")" | KIND
    params   := NAME "=" VALUE ( "," NAME "=" VALUE )*
    VALUE    := a bare token without "," "+" "(" ")" quotes or spaces,
                or a JSON string in double quotes ("a,b" for a key with a comma)

``+`` separates incidents only outside quotes and parentheses and when a name and ``:`` or
``(`` follow it (so ``offset=+30s`` stays one value). This module knows no incident kind: it
turns text into ``(kind, [(name, value), ...])`` and writes values back (:func:`quote`).
"""
from __future__ import annotations

import json
import re

from toolkit.settings import SettingError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NEXT_INCIDENT = re.compile(r"\s*[A-Za-z_][A-Za-z0-9_]*\s*[:(]")
_BARE = re.compile(r"[A-Za-z0-9_.:/\-]+(\.\.[A-Za-z0-9_.:/\-]+)?")


def quote(value: str) -> str:
    """``value`` as written in a spec: bare when it is a plain token, else a JSON string."""
    text = str(value)
    if _BARE.fullmatch(text) and not text.startswith("+"):
        return text
    return json.dumps(text)


def split_incidents(text: str) -> list[str]:
    """The incidents of a composite spec (``"a:x=1 + b:y=2"`` -> ``["a:x=1", "b:y=2"]``)."""
    parts, depth, start, i, quoted = [], 0, 0, 0, False
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\":
                i += 1
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "+" and depth == 0 and _NEXT_INCIDENT.match(text, i + 1):
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def split_incident(text: str) -> tuple[str, list[tuple[str, str]]]:
    """One incident's kind and its ``(name, value)`` pairs, in the order written."""
    text = text.strip()
    m = _NAME.match(text)
    if not m:
        raise SettingError("incident", f"incident {text!r}: write KIND:NAME=VALUE,... "
                           "(e.g. 'stall:partition=2,at=1min,duration=2min,drain=500/s')")
    kind, rest = m.group(0).lower(), text[m.end():].strip()
    if not rest:
        return kind, []
    if rest.startswith("(") and rest.endswith(")"):
        body = rest[1:-1]
    elif rest.startswith(":"):
        body = rest[1:]
    else:
        raise SettingError(kind, f"{kind}: cannot read {rest!r}; write {kind}:NAME=VALUE,...")
    return kind, _split_params(kind, body)


def _split_params(kind: str, body: str) -> list[tuple[str, str]]:
    items, i, n = [], 0, len(body)
    while i < n:
        while i < n and body[i] in " \t,":
            i += 1
        if i >= n:
            break
        m = _NAME.match(body, i)
        eq = body.find("=", i)
        if not m or eq < 0 or body[m.end():eq].strip():
            raise SettingError(kind, f"{kind}: expected NAME=VALUE at {body[i:]!r}")
        name = m.group(0).lower()
        i = eq + 1
        while i < n and body[i] in " \t":
            i += 1
        if i < n and body[i] == '"':
            try:
                value, end = json.JSONDecoder().raw_decode(body, i)
            except ValueError:
                raise SettingError(kind, f"{kind}: {name}: unterminated or bad quoted value {body[i:]!r}") from None
            i = end
        else:
            end = body.find(",", i)
            end = n if end < 0 else end
            value = body[i:end].strip()
            i = end
        items.append((name, str(value)))
        while i < n and body[i] in " \t":
            i += 1
        if i < n and body[i] != ",":
            raise SettingError(kind, f"{kind}: {name}: expected ',' after the value, at {body[i:]!r}")
    return items
