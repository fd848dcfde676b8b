"""The names the compliance tests' files use: scenarios and tests (no pydantic here: a check reads them before
it would import any model)."""

SCENARIOS = ("SingleStream", "MultiStream", "Server", "Offline", "Interactive")
TEST_NAMES = ("TEST01", "TEST04", "TEST05", "TEST06", "TEST07", "TEST08", "TEST09")
