"""Whether a verify file reports TEST PASS, read from the whole text, against the plain reading line by line."""

from __future__ import annotations

import itertools

import pytest

from checker.audit import verify_tests as vt


def plain(text: str, how: str) -> bool:
    lines = text.splitlines()
    if how == "exact":
        return any(line.strip() == "TEST PASS" for line in lines)
    return any("TEST PASS" in line for line in lines)


PIECES = ["TEST PASS", "TEST", " PASS", "TEST FAIL", "  TEST PASS  ", "xTEST PASSx", "\n", "\r", "\r\n", "\x0b", "\x0c",
          "\x1c", "\x85", "\u2028", "\u2029", "\t", "", "é"]


@pytest.mark.parametrize("how", ["substring", "exact", "other"])
def test_pass_line_read_from_the_whole_text(how):
    for parts in itertools.product(PIECES, repeat=3):
        text = "".join(parts)
        assert vt.reports_pass(text, how) == plain(text, how), repr(text)
        if how == "substring":
            assert vt.read_verify_performance(text).passed == plain(text, how)
