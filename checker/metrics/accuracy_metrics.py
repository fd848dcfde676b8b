"""Read accuracy metrics out of `accuracy.txt` the way the official checker does (F3-F5).

Line by line, every target metric's regex is tried at the start of the line; each
occurrence is compared with its target (lower bound) and upper limit; reading
stops once every metric has been seen passing and a `hash=` line was found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

HASH_RE = re.compile(r"^hash=([\w\d]+)$")


@dataclass
class MetricFailure:
    """An accuracy metric outside its bound: the metric, the bound and the value found."""

    metric: str
    bound: float
    found: str
    kind: str  # "below" or "above"
    line: int


@dataclass
class AccuracyReading:
    """What accuracy.txt says of a result's metrics: their values, the failures and the metrics missing."""

    values: dict[str, str] = field(default_factory=dict)  # first value seen per metric
    failures: list[MetricFailure] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    hash_value: str | None = None
    unparseable: list[tuple[str, str, int]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures and not self.missing and self.hash_value is not None and not self.unparseable


_META = set("\\()[].*+?{}|^$")


@lru_cache(maxsize=256)
def _literal(pattern: str) -> str:
    """The text every line the pattern matches (``re.match``) holds, as :func:`_compiled` tells it ("" when
    unknown): the literal characters after a leading ``.*`` or at the start of the pattern (a leading ``^``,
    which ``re.match`` implies, skipped; ``\\:`` and the like, an escaped character that is not a letter or
    digit, are that character), up to the first special character; the one before a ``?``, ``*`` or ``{`` is
    dropped (it may occur zero times). A pattern with an alternation has none."""
    if "|" in pattern:
        return ""
    at = 2 if pattern.startswith(".*") else 1 if pattern.startswith("^") else 0
    chars: list[str] = []
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            escaped = pattern[at + 1:at + 2]
            if not escaped or (escaped.isascii() and escaped.isalnum()):
                break  # a class (\\d, \\s), an anchor or a reference: the literal ends
            chars.append(escaped)
            at += 2
            continue
        if char in _META:
            if char in "?*{" and chars:  # the character before may be optional or repeated zero times
                chars.pop()
            break
        chars.append(char)
        at += 1
    return "".join(chars)


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> tuple[re.Pattern, str]:
    """The compiled pattern and a text every line it matches must contain ("" when unknown, :func:`_literal`).

    Round patterns look like ``.*'rouge1':\\s+([\\d.]+).*`` (a leading ``.*`` then a literal) or
    ``^accuracy=([\\d\\.]+).*`` (a literal at the start). On the long single lines of some accuracy.txt files
    (90 kB in v6.0's mixtral) the leading ``.*`` makes every failed match walk back over the whole line, for each
    metric; a line without the literal cannot match, so it is skipped without running the regex (and an
    accuracy.txt is read from the lines that hold one, found with ``str.find``). Only a pattern with no
    alternation gets a literal, so the shortcut never changes what matches."""
    return re.compile(pattern), _literal(pattern)


def _match(pattern: str, line: str):
    regex, literal = _compiled(pattern)
    return None if literal and literal not in line else regex.match(line)


@lru_cache(maxsize=256)
def _filterable(patterns: tuple[str, ...]) -> bool:
    """Whether :func:`_line_filter` has a search for ``patterns``, told without compiling that search (each
    pattern is compiled, as it was for it)."""
    literals = [_compiled(pattern)[1] for pattern in patterns]
    return all(literals) and not any("\n" in literal for literal in literals)


@lru_cache(maxsize=256)
def _line_filter(patterns: tuple[str, ...]) -> re.Pattern | None:
    """One search that finds every line some pattern could match or that could be the hash line, when every
    pattern has a literal (see ``_compiled``); None otherwise (every line is tried)."""
    literals = [_compiled(pattern)[1] for pattern in patterns]
    if not all(literals):
        return None
    if any("\n" in literal for literal in literals):
        return None  # (a candidate that could span lines: every line is tried)
    return re.compile("|".join(re.escape(literal) for literal in sorted(set(literals)) + ["hash="]))


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


#: what str.splitlines() takes for a line break besides "\n" (ASCII ones first): a text without any is split
#: at "\n" alone
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def _plain_breaks(text: str) -> bool:
    """No line break but "\n" in ``text`` (one memchr-like pass per kind; a character class in a regular
    expression reads 90 kB in 0.5 ms)."""
    return not any(map(text.__contains__, _OTHER_BREAKS[:6] if text.isascii() else _OTHER_BREAKS))


@lru_cache(maxsize=256)
def _filter_literals(patterns: tuple[str, ...]) -> tuple[str, ...]:
    """The texts :func:`_line_filter` searches for."""
    return tuple(sorted({_literal(pattern) for pattern in patterns})) + ("hash=",)


def _candidate_lines(text: str, literals: tuple[str, ...]):
    """(number, line) of the lines of a text without other line breaks than "\n" that hold one of
    ``literals``, as ``enumerate(text.splitlines(), start=1)`` filtered by :func:`_line_filter` gives them:
    each literal is looked for with ``str.find`` over the whole text (one search per line found, not one per
    line; no literal spans lines, see :func:`_line_filter`; an alternation of them in one regular
    expression would try each at every character: 1 ms on a 90 kB accuracy.txt)."""
    find = text.find
    ahead = [find(literal) for literal in literals]  # the next place of each literal (-1: none further)
    pos, number, size = 0, 1, len(text)
    while True:
        at = min((place for place in ahead if place >= 0), default=-1)
        if at < 0:
            return
        number += text.count("\n", pos, at)
        start = text.rfind("\n", pos, at) + 1 or pos
        end = find("\n", at)
        if end < 0:
            end = size
        yield number, text[start:end]
        pos, number = end + 1, number + 1
        ahead = [place if place < 0 or place >= pos else find(literal, pos) for place, literal in zip(ahead, literals)]


@lru_cache(maxsize=256)
def _readers(wanted: tuple[str, ...]) -> tuple[tuple[re.Pattern | None, str], ...]:
    """(compiled pattern, its literal) of each pattern (None for none), as :func:`_match` uses them."""
    return tuple(_compiled(pattern) if pattern else (None, "") for pattern in wanted)


#: a text of at most _SHORT_TEXT characters and fewer than _SHORT_LINES line feeds is read line by line (the
#: literal search of _candidate_lines costs more than the lines it passes over)
_SHORT_LINES, _SHORT_TEXT = 16, 4096


def read_accuracy(text: str, patterns: dict[str, str], targets: list[tuple[str, float]],
                  limits: list[tuple[str, float]]) -> AccuracyReading:
    reading = AccuracyReading()
    seen = [False] * len(targets)
    wanted = tuple(patterns.get(m) or "" for m, _ in list(targets) + list(limits))
    if _filterable(wanted) and _plain_breaks(text):
        # (every line given holds a literal, or, in a text of a few lines such as most accuracy.txt, every line:
        # a line without one is passed over below, literal by literal, as cheaply as the search would find it)
        lines = (enumerate(text.split("\n"), 1) if len(text) <= _SHORT_TEXT and text.count("\n") < _SHORT_LINES
                 else _candidate_lines(text, _filter_literals(wanted)))
        candidate = None
    else:
        candidate = _line_filter(wanted)
        lines = enumerate(text.splitlines(), start=1)
    readers = _readers(wanted)  # (each pattern matched as _match does, without a call per line and pattern)
    target_readers = list(zip(range(len(targets)), targets, readers))
    limit_readers = list(zip(limits, readers[len(targets):]))
    for number, raw in lines:
        if candidate is not None and candidate.search(raw) is None:
            continue  # no pattern can match this line and it is not the hash line: nothing to read
        line = raw.rstrip("\r")
        for index, (metric, target), (regex, literal) in target_readers:
            if regex is None or (literal and literal not in line):
                continue
            match = regex.match(line)
            if not match:
                continue
            found = match.group(1)
            reading.values.setdefault(metric, found)
            value = _float(found)
            if value is None:
                reading.unparseable.append((metric, found, number))
            elif value >= target:
                seen[index] = True
            else:
                reading.failures.append(MetricFailure(metric, target, found, "below", number))
        for (metric, limit), (regex, literal) in limit_readers:
            if regex is None or (literal and literal not in line):
                continue
            match = regex.match(line)
            if not match:
                continue
            value = _float(match.group(1))
            if value is not None and value > limit:
                reading.failures.append(MetricFailure(metric, limit, match.group(1), "above", number))
        hash_match = HASH_RE.match(line)
        if hash_match:
            reading.hash_value = hash_match.group(1)
        if all(seen) and reading.hash_value is not None:
            break
    failed_metrics = {f.metric for f in reading.failures if f.kind == "below"}
    reading.missing = [m for (m, _), ok in zip(targets, seen) if not ok and m not in failed_metrics
                       and m not in {u[0] for u in reading.unparseable}]
    return reading
