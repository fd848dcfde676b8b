"""Tests that need a tool (Chromium, pre-commit) skip without it on a user's machine, and fail under CI."""

import pytest

from tests.conftest import missing_tool


@pytest.mark.parametrize("value", ["true", "TRUE", "1"])
def test_ci_turns_a_missing_tool_into_a_failure(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI=true, so this test must run"):
        missing_tool("no browser")


@pytest.mark.parametrize("value", [None, "", "false"])
def test_elsewhere_a_missing_tool_skips(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.skip.Exception, match="no browser"):
        missing_tool("no browser")
