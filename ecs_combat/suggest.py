"""Suggestions for misspelt names: "did you mean 'first strike'?".

difflib is imported when a suggestion is made (only for a message): not at every start.
"""

from __future__ import annotations

from collections.abc import Iterable

#: Names longer than this get no suggestion (no known name is that long; comparing costs time).
LONGEST = 200


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name most like `name` (case and spacing ignored), or None if none is close."""
    if len(name) > LONGEST:
        return None
    import difflib

    by_key: dict[str, str] = {}
    for candidate in known:
        by_key.setdefault(_key(candidate), candidate)
    match = difflib.get_close_matches(_key(name), list(by_key), n=1, cutoff=0.6)
    return by_key[match[0]] if match else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest known name, or ``""`` if none is close."""
    match = closest(name, known)
    return f"; did you mean {match!r}?" if match is not None else ""


def some_names(name: str, known: Iterable[str], limit: int = 8) -> str:
    """The known names for a message, comma-separated: all of them when there are at most
    `limit`, else the `limit` most like `name` and how many more (a line, not a page)."""
    names = sorted(set(known))
    if len(names) <= limit:
        return ", ".join(names)
    if len(name) > LONGEST:
        picked = names[:limit]
    else:
        import difflib

        key = _key(name)
        ranked = sorted(names, key=lambda n: -difflib.SequenceMatcher(None, key, _key(n)).ratio())
        picked = sorted(ranked[:limit])
    return f"{', '.join(picked)} and {len(names) - limit} more"


def _key(name: str) -> str:
    """A name as compared: lower case, words joined by single spaces (``_`` and ``-`` too)."""
    return " ".join(name.lower().replace("_", " ").replace("-", " ").split())
