"""The one-screen verdict of a large report (a whole round): per division and per submitter the number
of results, valid and invalid, with power and inferred, and its top error and warning codes (errors
first, then the commonest); then the top codes of the round with their names.

Plain aligned columns: rich lays out a table by measuring every cell, which takes seconds for the
thousands of rows of a round (and this is what ``mlpc check --watch`` prints after every change).
"""

from __future__ import annotations

from collections import Counter

from checker.report import Report

TOP_PER_SUBMITTER = 3
TOP_CODES = 10


def table(headers: tuple[str, ...], rows: list[tuple[str, ...]], right: frozenset[int] = frozenset()) -> list[str]:
    """Lines of a plain table: a header, a rule, one line per row; columns in ``right`` right-aligned."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [line(headers), line(tuple("-" * w for w in widths))] + [line(r) for r in rows]


def _order(counter: Counter, severity: dict[str, str]) -> list[tuple[str, int]]:
    """Errors before warnings, then the commonest first."""
    return sorted(counter.items(), key=lambda item: (severity[item[0]] != "error", -item[1], item[0]))


def _top(counter: Counter, severity: dict[str, str], limit: int) -> str:
    common = _order(counter, severity)[:limit]
    more = len(counter) - len(common)
    return ", ".join(f"{code} x{count}" for code, count in common) + (f", +{more} more" if more > 0 else "")


def _unit(result_id: str | None) -> tuple[str, str] | None:
    parts = (result_id or "").split("/")
    return (parts[0], parts[1]) if len(parts) >= 2 else None


def render(report: Report, names: dict[str, str]) -> str:
    """The verdict tables; ``names`` maps finding codes to check names."""
    divisions: dict[str, list[int]] = {}  # results, valid, invalid, power, inferred
    submitters: dict[tuple[str, str], list[int]] = {}
    for r in report.results:
        for row in (divisions.setdefault(r.division, [0] * 5), submitters.setdefault((r.division, r.submitter), [0] * 5)):
            row[0] += 1
            row[1 if r.valid else 2] += 1
            row[3] += r.has_power
            row[4] += r.inferred
    codes: Counter = Counter()
    severity: dict[str, str] = {}
    holders: dict[str, set] = {}
    per_submitter: dict[tuple[str, str], Counter] = {}
    for f in report.findings:
        if f.waived or f.severity.value not in ("error", "warning"):
            continue
        codes[f.code] += 1
        severity[f.code] = f.severity.value
        unit = _unit(f.result_id)
        holders.setdefault(f.code, set()).add(unit)
        if unit is not None:
            per_submitter.setdefault(unit, Counter())[f.code] += 1
    right = frozenset({1, 2, 3, 4, 5})
    lines = ["By division", ""]
    lines += table(("division", "results", "valid", "invalid", "power", "inferred"),
                   [(d, *map(str, row)) for d, row in sorted(divisions.items())], right)
    lines += ["", "By submitter", ""]
    lines += table(("submitter", "results", "valid", "invalid", "power", "inferred", "top codes (errors first)"),
                   [(f"{d}/{s}", *map(str, row), _top(per_submitter.get((d, s), Counter()), severity, TOP_PER_SUBMITTER))
                    for (d, s), row in sorted(submitters.items())], right)
    lines += ["", "Top finding codes (errors first, then the commonest warnings)", ""]
    if codes:
        common = _order(codes, severity)[:TOP_CODES]
        lines += table(("code", "severity", "findings", "submitters", "check"),
                       [(code, severity[code], str(count), str(len({u for u in holders[code] if u})),
                         names.get(code, "")) for code, count in common], frozenset({2, 3}))
        if len(codes) > TOP_CODES:
            lines.append(f"... and {len(codes) - TOP_CODES} more codes")
    else:
        lines.append("none")
    return "\n".join(lines) + "\n"
