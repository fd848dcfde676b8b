"""Power checks (PW): `performance/{power,ranging,run_1}` of a power result.

Official references: docs/official-checker.md section 1.4 and section I (I1-I6, and the Power WG
`power_checker.py` sub-checks 1-11). A result is a power result iff `performance/power/` exists.

Each check reports one problem; when an input another check already reports is missing (no PTD log,
no power window, unreadable session JSON) the dependent checks stay silent, so one fault gives one code.
Checks that are stricter than the official tools say so and are graded `warning` in every round.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from checker.checks.base import check, finding, has_power
from checker.checks.memo import per_context
from checker.metrics import ptd_log
from checker.metrics.power import (
    PowerError, SplParse, coverage_gaps, epoch_utc, from_us, parse_stamp, ranging_delta_percent, window_average,
    window_has_positive, window_has_samples,
)

RANGING_OPTIONAL = ("mlperf_log_accuracy.json",)


# --- shared, memoised per result ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Window:
    """The time window of a LoadGen run, or why it has none."""

    begin: datetime | None
    end: datetime | None
    problem: str | None  # why there is no window


@dataclass
class _State:
    """What the power checks of one result read once and share: the power logs, run windows and session files."""

    run_spl: SplParse | None
    ranging_spl: SplParse | None
    run_window: _Window | None  # None when the run_1 detail log is absent/unparsed (reported elsewhere)
    ranging_window: _Window | None
    client: dict | None  # usable session JSONs (object with the required keys), else None
    server: dict | None
    scan: ptd_log.PtdScan | None


def _window(parsed) -> _Window | None:
    if parsed is None or parsed.log is None:
        return None
    log = parsed.log
    begin, end = log.get("power_begin"), log.get("power_end")
    if begin is None or end is None:
        return _Window(None, None, "power_begin/power_end missing from the detail log")
    try:
        return _Window(parse_stamp(begin), parse_stamp(end), None)
    except PowerError as exc:
        return _Window(None, None, str(exc))


def _session(power, name: str) -> dict | None:
    data = power.client_json if name == "client.json" else power.server_json
    if name not in power.power_listing.files or name in power.json_errors:
        return None
    return data if not ptd_log.missing_session_keys(data) else None


@per_context
def _state(ctx, rules) -> _State:
    """What the PW checks of one result share: the power windows, the session files and the PTD scan."""
    power = ctx.power
    run_spl, ranging_spl = power.run_samples, power.ranging_samples
    run_window = _window(ctx.perf)
    ranging_window = _window(power.ranging_detail)
    client, server = _session(power, "client.json"), _session(power, "server.json")
    scan = None
    if power.ptd_log is not None and server is not None:
        begin = end = None
        if run_window and run_window.problem is None:
            begin, end = epoch_utc(run_window.begin), epoch_utc(run_window.end)
        try:
            offset = float(server.get("timezone") or 0)
        except (TypeError, ValueError):
            offset = 0.0
        p = rules.power
        scan = ptd_log.walk_ptd_log(power.ptd_log, str(server.get("session_name")), offset, begin, end,
                                    p.time_delta_tolerance_ms, p.ptd_common_ranging_errors,
                                    p.ptd_testing_errors_as_warnings, p.ptd_uncertainty_error_pattern)
    state = _State(run_spl, ranging_spl, run_window, ranging_window, client, server, scan)
    return state


def _perf(ctx) -> str:
    return f"{ctx.rel}/performance"


def _ptd_rel(ctx) -> str:
    return f"{ctx.power.rel}/ptd_logs.txt"


def _scan_usable(st: _State) -> bool:
    """The PTD log walk got as far as the official check's event loop."""
    s = st.scan
    return (s is not None and s.ranging_start is not None and s.ranging_stop is not None and s.crash is None
            and s.uncertainty_line is not None and s.uncertainty_line.time is not None
            and s.uncertainty_line.time < s.ranging_start)


def _official_event(ctx, rules, grade: str):
    """The PTD event at which the official walk stops, when the walk got there and it has ``grade``."""
    if ctx.power is None:
        return None
    st = _state(ctx, rules)
    event = st.scan.official if _scan_usable(st) else None
    return event if event is not None and event.grade == grade else None


# --- checks -----------------------------------------------------------------------------------------


@check("PW001", "power-files-mismatch", "result", when=has_power)
def power_files_mismatch(ctx, rules):
    """`performance/power` or `performance/ranging` does not hold exactly the required files.

    What it checks: `power/` holds client.json, client.log, server.json, server.log (and
    ptd_logs.txt, whose absence is PW013) and nothing else but the globally optional names;
    `ranging/` exists and holds mlperf_log_detail.txt, mlperf_log_summary.txt and spl.txt, optionally
    mlperf_log_accuracy.json. (`run_1/spl.txt` is part of ST019.)
    Why: official checker 1.4 and I1 (`%s has file list mismatch`), which invalidates the scenario.
    Failing example: `performance/power/` without `server.log`, or `ranging/` with `ptd_out.txt`.
    How to fix: copy the whole PTD session output (power/, ranging/, run_1/spl.txt) produced by the
    MLCommons power client.
    Data used: `power.required_power_files`, `power.required_ranging_files`, `always_optional_files`.
    Stricter than official: no.
    """
    power = ctx.power
    if power is None:
        return
    optional = set(rules.always_optional_files)
    for rel, listing, required, extra_ok in (
            (power.rel, power.power_listing, [f for f in rules.power.required_power_files if f != "ptd_logs.txt"],
             {"ptd_logs.txt"}),
            (f"{_perf(ctx)}/ranging", power.ranging_listing, list(rules.power.required_ranging_files),
             set(RANGING_OPTIONAL))):
        if not listing.exists:
            yield finding(rel, "folder is missing", expected=", ".join(required), actual="missing",
                          hint="copy the PTD session's folder next to run_1")
            continue
        present = set(listing.files)
        missing = [f for f in required if f not in present]
        extra = sorted(f for f in present if f not in required and f not in optional and f not in extra_ok)
        if missing or extra:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + \
                    ([f"unexpected {', '.join(extra)}"] if extra else [])
            yield finding(rel, f"file list mismatch: {'; '.join(parts)}", expected=", ".join(required),
                          actual=", ".join(sorted(present)) or "no files", hint="keep exactly the required files")


@check("PW002", "no-power-samples-in-window", "result", when=has_power)
def no_power_samples_in_window(ctx, rules):
    """No power sample falls inside the LoadGen power window of run_1 (or of the ranging run).

    What it checks: the detail log has `power_begin`/`power_end` (MM-DD-YYYY HH:MM:SS.mmm) and
    `spl.txt` has at least one `Time` line with watts > 0 strictly inside (begin, end). Checked for
    `run_1` and for `ranging`.
    Why: official checker I2 (`%s has no power samples falling in power range`) invalidates run_1;
    for ranging the Power WG checker fails (no power_begin → assertion; no sample → average -1 and
    the ranging/testing comparison fails). I6: an exception in the power handling invalidates.
    Failing example: spl.txt recorded on another day than the LoadGen run, or power_end missing.
    How to fix: start the PTD client so that it wraps the LoadGen run, and keep the logs of that run.
    Data used: none (timestamp format is LoadGen's).
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    for name, window, spl, detail_rel in (
            ("run_1", st.run_window, st.run_spl, f"{_perf(ctx)}/run_1/mlperf_log_detail.txt"),
            ("ranging", st.ranging_window, st.ranging_spl, f"{_perf(ctx)}/ranging/mlperf_log_detail.txt")):
        if window is None:
            continue
        if window.problem:
            yield finding(detail_rel, f"no power window: {window.problem}", expected="power_begin and power_end",
                          actual=window.problem, hint="use a LoadGen built with power support and keep its log")
            continue
        if spl is None:
            continue  # spl.txt missing (ST019 / PW001) or unreadable (PW012)
        if not window_has_positive(spl, window.begin, window.end):
            first = from_us(spl.us[0]).strftime("%m-%d-%Y %H:%M:%S") if spl.us else "none"
            yield finding(f"{_perf(ctx)}/{name}/spl.txt",
                          f"no power samples falling in power range {window.begin:%m-%d-%Y %H:%M:%S.%f}"
                          f" - {window.end:%m-%d-%Y %H:%M:%S.%f}",
                          expected="at least one sample with watts > 0 inside the window",
                          actual=f"0 of {len(spl.us)} samples (first at {first})",
                          hint="the spl.txt must come from the same session as the LoadGen run")


@check("PW003", "power-window-not-covered", "result", stricter=True, when=has_power)
def power_window_not_covered(ctx, rules):
    """The power samples do not cover the whole run_1 power window.

    What it checks: inside (power_begin, power_end) of run_1 there is no stretch longer than
    `power.max_sample_gap_s` without a `spl.txt` sample: at the start, between samples, or at the end.
    Why: the power metric is the average over the run (rules: power measured for the whole run,
    official I2 averages the samples in the window); a partial log makes the average unrepresentative.
    Failing example: spl.txt stops half-way through the LoadGen run (the meter was stopped early).
    How to fix: stop the PTD session only after LoadGen has finished; rerun if samples are missing.
    Data used: `power.max_sample_gap_s`.
    Stricter than official: yes, the official checker only needs one sample in the window; graded warning.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    w, spl = st.run_window, st.run_spl
    if w is None or w.problem or spl is None or not window_has_samples(spl, w.begin, w.end):
        return
    gaps = coverage_gaps(spl, w.begin, w.end, rules.power.max_sample_gap_s)
    if gaps:
        worst = max(gaps, key=lambda g: g.seconds)
        uncovered = sum(g.seconds for g in gaps)
        yield finding(f"{_perf(ctx)}/run_1/spl.txt",
                      f"power samples do not cover the run window {w.begin:%H:%M:%S.%f} - {w.end:%H:%M:%S.%f}: "
                      f"{uncovered:.1f} s of {(w.end - w.begin).total_seconds():.1f} s without samples",
                      expected=f"no gap longer than {rules.power.max_sample_gap_s:g} s",
                      actual=f"{len(gaps)} gap(s), longest {worst.seconds:.1f} s "
                             f"({worst.start:%H:%M:%S} - {worst.end:%H:%M:%S})",
                      hint="measure power for the whole LoadGen run")


@check("PW004", "ptd-version-not-allowed", "result", when=has_power)
def ptd_version_not_allowed(ctx, rules):
    """The PTDaemon version is not the one allowed in this round (or cannot be read).

    What it checks: the reply to the `Identify` command in `server.json` `ptd_messages` contains
    `version=<X>-...` and X is one of `power.ptd_versions` (v4.1: 1.10.0; v5.0+: 1.11.1).
    Why: Power WG checker sub-check 3 ("Check PTD commands and replies"); a failure invalidates (I5).
    Failing example: `version=1.9.2-...` in a v4.1 submission, or no `Identify` reply.
    How to fix: measure with the PTDaemon release the round requires.
    Data used: `power.ptd_versions`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.server is None:
        return
    ident = ptd_log.identify(st.server)
    rel = f"{ctx.power.rel}/server.json"
    allowed = ", ".join(rules.power.ptd_versions)
    if ident is None:
        yield finding(rel, "no reply to the PTD 'Identify' command", expected=f"PTD version {allowed}",
                      actual="no Identify reply", pointer="/ptd_messages",
                      hint="keep server.json exactly as the power server wrote it")
    elif ident.version not in rules.power.ptd_versions:
        yield finding(rel, f"PTD version {ident.version!r} is not supported", expected=allowed,
                      actual=ident.version or "none", pointer="/ptd_messages",
                      hint=f"use PTDaemon {allowed} for this round")


@check("PW005", "analyzer-not-allowed", "result", when=has_power)
def analyzer_not_allowed(ctx, rules):
    """The power analyzer (meter) model or PTD device number is not an allowed one.

    What it checks: the meter model (first field of the `Identify` reply) is a key of
    `power.analyzer_models`; every `ptd_config` device_type is one of its values; a multichannel
    device (77) is configured with two channels.
    Why: Power WG checker sub-checks 3 and 10 ("Check PTD configuration"); a failure invalidates (I5).
    Failing example: `Identify` reply `FlukeX,...` or `ptd_config.device_type` 999.
    How to fix: measure with one of the supported Yokogawa analyzers in its supported PTD mode.
    Data used: `power.analyzer_models`, `power.multichannel_devices`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.server is None:
        return
    rel = f"{ctx.power.rel}/server.json"
    models = rules.power.analyzer_models
    ident = ptd_log.identify(st.server)
    if ident is not None and ident.version in rules.power.ptd_versions and ident.model not in models:
        yield finding(rel, f"power meter {ident.model!r} is not supported", expected=", ".join(models),
                      actual=ident.model, pointer="/ptd_messages", hint="use a supported analyzer")
    configs = ptd_log.ptd_configs(st.server)
    if "ptd_config" in st.server and not configs:
        yield finding(rel, "ptd_config has no device configuration", expected="device_type",
                      actual=repr(st.server.get("ptd_config"))[:80], pointer="/ptd_config")
    for i, cfg in enumerate(configs):
        dev = cfg.get("device_type")
        if dev not in models.values():
            yield finding(rel, f"device number {dev} is not supported",
                          expected=", ".join(str(v) for v in sorted(set(models.values()))), actual=dev,
                          pointer="/ptd_config", hint="use a supported analyzer")
        elif dev in rules.power.multichannel_devices:
            command = cfg.get("command") if isinstance(cfg.get("command"), list) else []
            channels = next((str(command[j + 1]) for j in range(len(command) - 1) if command[j] == "-c"), "")
            chan = cfg.get("channel")
            if not (len(channels.split(",")) == 2 and chan and isinstance(chan, list) and len(chan) == 2):
                yield finding(rel, f"multichannel device {dev} is configured with one channel",
                              expected="two channels (-c a,b)", actual=channels or "none", pointer="/ptd_config")


@check("PW006", "uncertainty-above-limit", "result", when=has_power)
def uncertainty_above_limit(ctx, rules):
    """The PTD log reports a measurement uncertainty above 1% during the load.

    What it checks: the first graded WARNING/ERROR line of `ptd_logs.txt`, walked exactly like the Power
    WG checker does, is `WARNING: Uncertainty x.xx%, which is above 1.00% limit for the last sample!`
    inside its load window (run_1 power_begin/power_end; the PTD stamp is shifted by the session
    `timezone`, and the window is trimmed by TIME_DELTA_TOLERANCE added as seconds, both as official).
    Why: Power WG checker sub-check 9; an assertion, so the result is invalid (I5).
    Failing example: a testing-phase uncertainty warning with the meter on a too-large range.
    How to fix: let ranging pick a suitable range (or set it by hand) and rerun.
    Data used: `power.ptd_uncertainty_error_pattern`, `power.time_delta_tolerance_ms`.
    Stricter than official: no. Uncertainty lines the official walk does not reach are PW017.
    """
    ev = _official_event(ctx, rules, "uncertainty-error")
    if ev is not None:
        yield finding(_ptd_rel(ctx), f"{ev.kind}: {ev.message} during the testing phase",
                      expected="uncertainty at most 1% during the load", actual=ev.message, line=ev.line.line,
                      hint="fix the meter range and rerun the power measurement")


@check("PW007", "ptd-log-error-outside-ranging", "result", when=has_power)
def ptd_log_error_outside_ranging(ctx, rules):
    """The PTD log has an ERROR line outside the ranging phase.

    What it checks: walking `ptd_logs.txt` like the Power WG checker, the first graded line is an
    `ERROR:` line whose time is not inside the ranging window (`Go with mark '<session>_ranging'` to
    the next `Completed test`), other than the accepted `USB.` error.
    Why: Power WG checker sub-check 9 (ERROR lines are only allowed during ranging); invalid (I5).
    Failing example: `ERROR: Bad watts reading nan from Yokogawa` during the testing run.
    How to fix: find the meter problem (cable, range, firmware) and rerun.
    Data used: `power.ptd_testing_errors_as_warnings`.
    Stricter than official: no.
    """
    ev = _official_event(ctx, rules, "error-outside-ranging")
    if ev is not None:
        yield finding(_ptd_rel(ctx), f"ERROR outside the ranging phase: {ev.message}",
                      expected="ERROR lines only during ranging", actual=ev.line.text.strip(), line=ev.line.line,
                      hint="fix the meter problem and rerun the power measurement")


@check("PW008", "ptd-log-warning", "result", when=has_power)
def ptd_log_warning(ctx, rules):
    """The PTD log has a warning the Power WG checker accepts but flags for audit.

    What it checks: walking `ptd_logs.txt` like the Power WG checker, the first graded line is a
    `WARNING:` line inside its load window, an uncommon `ERROR:` during ranging (e.g. `Bad watts reading
    9.91e37 from Yokogawa`), or the accepted testing error `USB.`.
    Why: Power WG checker sub-check 9 raises CheckerWarning: "Treated as WARNING", check passes
    ("Warnings encountered, check for audit!"). Graded warning.
    Failing example: `ERROR: Bad watts reading 991000...000 from Yokogawa` during ranging (v4.1
    UntetherAI r760 Offline, accepted with this warning).
    How to fix: nothing is required; check the meter if it repeats.
    Data used: `power.ptd_common_ranging_errors`, `power.ptd_testing_errors_as_warnings`.
    Stricter than official: no (same warning).
    """
    ev = _official_event(ctx, rules, "warning")
    if ev is not None:
        yield finding(_ptd_rel(ctx), f"{ev.kind}: {ev.message} ({ev.reason}, treated as a warning)",
                      expected="no PTD warnings", actual=ev.line.text.strip(), line=ev.line.line,
                      hint="accepted by the official checker; reviewers may ask about it")


def uuid_value(text: str) -> int:
    """The value ``uuid.UUID(text)`` holds (its ``int``: two UUIDs are equal when these are), read as that class
    reads its text, without importing ``uuid`` (which imports ``platform``); ValueError where it raises one."""
    digits = text.replace("urn:", "").replace("uuid:", "").strip("{}").replace("-", "")
    if len(digits) != 32:
        raise ValueError("badly formed hexadecimal UUID string")
    return int(digits, 16)


@check("PW009", "power-session-mismatch", "result", when=has_power)
def power_session_mismatch(ctx, rules):
    """client.json and server.json do not describe the same PTD session.

    What it checks: `uuid.client` and `uuid.server` are valid UUIDs and equal in both files, and
    `session_name` is equal.
    Why: Power WG checker sub-checks 4 and 5 ("Check UUID", "Check session name"); invalid (I5).
    Failing example: client.json from one session and server.json from another.
    How to fix: keep both files of the same session together.
    Data used: none.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.client is None or st.server is None:
        return
    rel = f"{ctx.power.rel}/client.json"
    cu, su = st.client.get("uuid"), st.server.get("uuid")
    for side in ("client", "server"):
        a = cu.get(side) if isinstance(cu, dict) else None
        b = su.get(side) if isinstance(su, dict) else None
        try:
            same = uuid_value(str(a)) == uuid_value(str(b))
        except ValueError:
            same = False
        if not same:
            yield finding(rel, f"'{side}' uuid differs between client.json and server.json", expected=b,
                          actual=a, pointer=f"/uuid/{side}", hint="use the files of one PTD session")
    if st.client.get("session_name") != st.server.get("session_name"):
        yield finding(rel, "session_name differs between client.json and server.json",
                      expected=st.server.get("session_name"), actual=st.client.get("session_name"),
                      pointer="/session_name", hint="use the files of one PTD session")


@check("PW010", "ptd-debug-enabled", "result", when=has_power)
def ptd_debug_enabled(ctx, rules):
    """The power server ran in debug mode.

    What it checks: `server.json` has no `debug` key or `debug` is false.
    Why: Power WG checker sub-check 11 ("Check debug is disabled on server-side"); invalid (I5).
    Failing example: `"debug": true` in server.json.
    How to fix: run the power server without debug and rerun.
    Data used: none.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.server is not None and st.server.get("debug", False) is not False:
        yield finding(f"{ctx.power.rel}/server.json", "the power server was running in debug mode",
                      expected="debug false", actual=repr(st.server.get("debug")), pointer="/debug",
                      hint="run the power server without --debug")


@check("PW011", "testing-power-below-ranging", "result", when=has_power)
def testing_power_below_ranging(ctx, rules):
    """The testing run drew clearly less power than the ranging run.

    What it checks: average watts (> 0, inside each run's power window) of run_1 vs ranging, rounded
    as the Power WG checker (5 decimals, delta in % to 2); the delta must be > -5%.
    Why: Power WG checker sub-check 6; an assertion, invalid (I5). A lower testing power suggests the
    two runs did not run the same workload.
    Failing example: ranging 400 W, testing 360 W (-10%).
    How to fix: run ranging and testing with the same settings and workload.
    Data used: `power.testing_power_min_delta_percent`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    rw, tw = st.ranging_window, st.run_window
    if not (rw and tw and not rw.problem and not tw.problem and st.ranging_spl and st.run_spl):
        return
    ranging = window_average(st.ranging_spl, rw.begin, rw.end)
    testing = window_average(st.run_spl, tw.begin, tw.end)
    if ranging is None or testing is None:
        return  # PW002
    delta = ranging_delta_percent(ranging, testing)
    limit = rules.power.testing_power_min_delta_percent
    if not delta > limit:
        yield finding(f"{_perf(ctx)}/run_1/spl.txt",
                      f"average testing power {testing:.5f} W is {-delta:.2f}% below ranging power {ranging:.5f} W",
                      expected=f"delta > {limit:g}%", actual=f"{delta:.2f}%",
                      hint="ranging and testing must run the same workload")


@check("PW012", "power-log-unparseable", "result", when=has_power)
def power_log_unparseable(ctx, rules):
    """A power log (spl.txt or ptd_logs.txt) has lines the official tools cannot parse.

    What it checks: `spl.txt` of run_1 and ranging: every `Time` record has a
    MM-DD-YYYY HH:MM:SS.mmm timestamp (field 1) and numeric watts (field 3); no file has non-UTF-8
    bytes; `ptd_logs.txt`: no line the Power WG checker reads (up to the ranging end, and its
    WARNING/ERROR lines) has a malformed timestamp, and WARNING/ERROR lines have one. Files that
    exist but cannot be read at all (binary, too large) are reported too. Reports the count of bad
    lines and the first one.
    Why: official I2/I6 (the submission checker raises on a bad `Time` record and invalidates) and the
    Power WG checker (an unhandled exception fails the check, I5).
    Failing example: `Time,garbage,Watts,abc` in run_1/spl.txt.
    How to fix: resubmit the files exactly as the PTD client/server wrote them.
    Data used: none.
    Stricter than official: no. Lines the official tools skip are PW018.
    """
    power = ctx.power
    if power is None:
        return
    st = _state(ctx, rules)
    perf = _perf(ctx)
    for rel, spl, listed, error in (
            (f"{perf}/run_1/spl.txt", st.run_spl, "spl.txt" in ctx.perf_listing.files, power.run_spl_error),
            (f"{perf}/ranging/spl.txt", st.ranging_spl, "spl.txt" in power.ranging_listing.files, None)):
        if listed and spl is None:
            reason = error or "binary or too large"
            yield finding(rel, f"power log cannot be read ({reason})", expected="a text spl.txt", actual=reason)
        elif spl is not None and spl.bad:
            line, text = spl.bad[0]
            yield finding(rel, f"{len(spl.bad)} unparseable line(s) in the power log",
                          expected="Time,MM-DD-YYYY HH:MM:SS.mmm,Watts,<number>,...", actual=f"line {line}: {text!r}",
                          line=line, hint="resubmit spl.txt as the PTD client wrote it", count=len(spl.bad))
    if "ptd_logs.txt" in power.power_listing.files and power.ptd_log is None:
        yield finding(_ptd_rel(ctx), "PTD log cannot be read (binary or too large)", expected="a text log",
                      actual="unreadable")
    scan = st.scan
    if scan is not None:
        bad = sorted({*(n for n in scan.undecodable), *([scan.crash.line] if scan.crash else [])})
        if bad:
            first = scan.crash.text if scan.crash and scan.crash.line == bad[0] else "non-UTF-8 bytes"
            yield finding(_ptd_rel(ctx), f"{len(bad)} unparseable line(s) in the PTD log",
                          expected="MM-DD-YYYY HH:MM:SS.mmm: <message> on timestamped lines, UTF-8 text",
                          actual=f"line {bad[0]}: {first!r}", line=bad[0],
                          hint="resubmit ptd_logs.txt as the power server wrote it", count=len(bad))


@check("PW013", "ptd-log-missing", "result", when=has_power)
def ptd_log_missing(ctx, rules):
    """The PTD log `power/ptd_logs.txt` is missing.

    What it checks: `performance/power/ptd_logs.txt` exists.
    Why: official I1 (power file set) and the Power WG checker (sub-checks 8, 9 read it); invalid.
    Failing example: `power/` with client/server files but no ptd_logs.txt.
    How to fix: copy ptd_logs.txt from the power server's output of that session.
    Data used: `power.required_power_files`.
    Stricter than official: no.
    """
    power = ctx.power
    if power is not None and power.power_listing.exists and "ptd_logs.txt" not in power.power_listing.files:
        yield finding(_ptd_rel(ctx), "PTD log is missing", expected="ptd_logs.txt", actual="missing",
                      hint="copy it from the power server's session output")


@check("PW014", "power-session-json-invalid", "result", when=has_power)
def power_session_json_invalid(ctx, rules):
    """client.json or server.json cannot be read or lacks a required key.

    What it checks: each file present in `power/` parses as a JSON object with version, timezone,
    modules, sources, messages, uuid, session_name, results and phases.
    Why: Power WG checker sub-check 1 (SessionDescriptor); any failure fails the check (I5/I6).
    Failing example: server.json truncated in the middle, or without `phases`.
    How to fix: resubmit the files exactly as the power client and server wrote them.
    Data used: none.
    Stricter than official: no.
    """
    power = ctx.power
    if power is None:
        return
    for name, data in (("client.json", power.client_json), ("server.json", power.server_json)):
        if name not in power.power_listing.files:
            continue  # PW001
        rel = f"{power.rel}/{name}"
        if name in power.json_errors:
            yield finding(rel, f"cannot be parsed: {power.json_errors[name]}", expected="a JSON object",
                          actual=power.json_errors[name])
            continue
        missing = ptd_log.missing_session_keys(data)
        if missing:
            yield finding(rel, f"required key(s) missing: {', '.join(missing)}",
                          expected=", ".join(ptd_log.SESSION_KEYS), actual=f"missing {', '.join(missing)}")


@check("PW015", "uncertainty-check-not-activated", "result", when=has_power)
def uncertainty_check_not_activated(ctx, rules):
    """PTD did not activate its uncertainty checking before ranging started.

    What it checks: `ptd_logs.txt` has a timestamped `Uncertainty checking for Yokogawa<model> is
    activated` line, earlier than the ranging start (`Go with mark '<session>_ranging'`).
    Why: Power WG checker sub-check 9; an assertion, invalid (I5). Without it PTD cannot flag
    samples with too much uncertainty.
    Failing example: a PTD log from a PTDaemon started without uncertainty support.
    How to fix: use the supported PTDaemon and analyzer; rerun.
    Data used: none.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    s = st.scan
    if s is None or s.crash is not None or s.ranging_start is None or s.ranging_stop is None:
        return
    u = s.uncertainty_line
    if u is None:
        yield finding(_ptd_rel(ctx), "'Uncertainty checking for Yokogawa... is activated' not found",
                      expected="the line before ranging starts", actual="absent",
                      hint="use a PTDaemon with uncertainty checking")
    elif u.time is None or u.time >= s.ranging_start:
        yield finding(_ptd_rel(ctx), "uncertainty checking was activated after ranging started",
                      expected="activation before the ranging start", actual=u.text.strip(), line=u.line)


@check("PW016", "ptd-ranging-window-missing", "result", when=has_power)
def ptd_ranging_window_missing(ctx, rules):
    """The PTD log does not show the ranging run.

    What it checks: `ptd_logs.txt` has `Go with mark '<session_name>_ranging'` followed by
    `Completed test` (timestamped lines).
    Why: Power WG checker sub-check 9 ("Can not find ranging time in ptd_logs.txt"); invalid (I5).
    Failing example: a PTD log of another session (other session name), or cut before ranging ended.
    How to fix: submit the complete PTD log of this session.
    Data used: none.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    s = st.scan
    if s is None or s.crash is not None:
        return
    if s.ranging_start is None or s.ranging_stop is None:
        mark = f"{st.server.get('session_name')}_ranging"
        yield finding(_ptd_rel(ctx), "cannot find the ranging time in the PTD log",
                      expected=f"Go with mark '{mark}' ... Completed test",
                      actual="no ranging start" if s.ranging_start is None else "no 'Completed test' after it",
                      hint="submit the complete PTD log of this session")


@check("PW017", "ptd-log-error-masked", "result", stricter=True, when=has_power)
def ptd_log_error_masked(ctx, rules):
    """The PTD log has an error the official walk never grades.

    What it checks: an `ERROR:` line outside ranging, or an uncertainty-above-1% warning inside the PTD
    testing window (`Go with mark '<session>_testing'` to `Completed test`), that the Power WG checker
    does not fail on: because it stops at the first warning, or because it compares the PTD clock
    shifted by the session timezone (and a window trimmed by 800 "seconds") with the LoadGen clock.
    Why: rules (power measured within 1% uncertainty, no meter errors during the measurement); the
    official check misses these (official-checker I sub-check 9 behaviour).
    Failing example: an uncertainty warning during testing in a session with `timezone` 14400.
    How to fix: fix the meter range and rerun the power measurement.
    Data used: `power.ptd_uncertainty_error_pattern`.
    Stricter than official: yes; graded warning.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    s = st.scan
    if s is None or s.ranging_start is None or s.ranging_stop is None:
        return
    reached = s.official if _scan_usable(st) else None
    unc = re.compile(rules.power.ptd_uncertainty_error_pattern)
    missed = []
    for ev in s.events:
        if reached is not None and ev is reached:
            continue
        t = ev.line.time
        if ev.grade == "error-outside-ranging" or ev.grade == "uncertainty-error":
            missed.append(ev)
        elif (ev.kind == "WARNING" and unc.search(ev.message) and t is not None and s.testing_start is not None
              and s.testing_start < t < (s.testing_stop or float("inf"))):
            missed.append(ev)
    if missed:
        ev = missed[0]
        yield finding(_ptd_rel(ctx), f"{len(missed)} PTD error line(s) not graded by the official check, "
                      f"first: {ev.kind}: {ev.message}",
                      expected="no meter errors or uncertainty above 1% during testing",
                      actual=ev.line.text.strip(), line=ev.line.line, count=len(missed),
                      hint="the official checker misses this; reviewers may reject the measurement")


@check("PW018", "power-log-stray-lines", "result", stricter=True, when=has_power)
def power_log_stray_lines(ctx, rules):
    """A power log has stray lines the official tools skip.

    What it checks: non-blank `spl.txt` lines that are not `Time,` records, and `ptd_logs.txt` lines
    with a malformed timestamp that the Power WG checker never reads (after the ranging end, not
    WARNING/ERROR lines). Reports the count and the first line.
    Why: PTD writes only records; anything else means the log was edited or concatenated.
    Failing example: a `# copied from the meter PC` line in spl.txt.
    How to fix: resubmit the files exactly as the PTD client/server wrote them.
    Data used: none.
    Stricter than official: yes; graded warning.
    """
    power = ctx.power
    if power is None:
        return
    st = _state(ctx, rules)
    perf = _perf(ctx)
    for rel, spl in ((f"{perf}/run_1/spl.txt", st.run_spl), (f"{perf}/ranging/spl.txt", st.ranging_spl)):
        if spl is not None and spl.stray:
            line, text = spl.stray[0]
            yield finding(rel, f"{len(spl.stray)} stray line(s) in the power log", expected="only Time,... records",
                          actual=f"line {line}: {text!r}", line=line, count=len(spl.stray))
    if st.scan is not None:
        crash = st.scan.crash.line if st.scan.crash else None
        stray = [b for b in st.scan.bad_stamps if b.line != crash]
        if stray:
            yield finding(_ptd_rel(ctx), f"{len(stray)} line(s) with a malformed timestamp in the PTD log",
                          expected="MM-DD-YYYY HH:MM:SS.mmm", actual=f"line {stray[0].line}: {stray[0].text!r}",
                          line=stray[0].line, count=len(stray))


def _epoch_window(w: _Window | None) -> tuple[float, float] | None:
    if w is None or w.problem:
        return None
    return epoch_utc(w.begin), epoch_utc(w.end)


@check("PW019", "loadgen-outside-ptd-phase", "result", when=has_power)
def loadgen_outside_ptd_phase(ctx, rules):
    """The LoadGen run does not lie inside the PTD client's measurement phase.

    What it checks: power_begin and power_end of the ranging and run_1 detail logs (read as UTC) lie
    strictly between the 2nd and 3rd phase stamps of client.json `phases.ranging` / `phases.testing`,
    also accepted one hour later (the official DST workaround).
    Why: Power WG checker sub-check 6 ("Loadgen test begin time is not within ... mode time
    interval"); invalid (I5).
    Failing example: run_1 logs of another LoadGen run than the one measured.
    How to fix: submit the LoadGen logs of the measured runs.
    Data used: `power.dst_workaround_s`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.client is None:
        return
    dst = rules.power.dst_workaround_s
    for mode, w, name in (("ranging", st.ranging_window, "ranging"), ("testing", st.run_window, "run_1")):
        bounds = _epoch_window(w)
        starts = ptd_log.phase_starts(st.client, mode)
        if bounds is None:
            continue
        if not starts or len(starts) < 3:
            yield finding(f"{ctx.power.rel}/client.json", f"phases.{mode} has fewer than 3 phase stamps",
                          expected="4 [time, monotonic] pairs", actual=starts, pointer=f"/phases/{mode}")
            continue
        lo, hi = starts[1], starts[2]
        for label, t in (("begin", bounds[0]), ("end", bounds[1])):
            if not (lo < t < hi or lo < t - dst < hi):
                yield finding(f"{_perf(ctx)}/{name}/mlperf_log_detail.txt",
                              f"LoadGen {label} time is not within the PTD {mode} phase",
                              expected=f"between {lo:.3f} and {hi:.3f} (epoch s)", actual=f"{t:.3f}",
                              hint="submit the LoadGen logs of the measured run")


@check("PW020", "client-server-clock-skew", "result", when=has_power)
def client_server_clock_skew(ctx, rules):
    """The power client and server clocks disagree.

    What it checks: client.json and server.json have as many phase stamps per mode (ranging,
    testing), and each pair differs by at most TIME_DELTA_TOLERANCE.
    Why: Power WG checker sub-check 6 ("Check time difference"); invalid (I5).
    Failing example: server phases 2 s later than the client's (NTP not synchronised).
    How to fix: synchronise both machines with NTP and rerun.
    Data used: `power.time_delta_tolerance_ms`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.client is None or st.server is None:
        return
    tol = rules.power.time_delta_tolerance_ms
    for mode in ("ranging", "testing"):
        c, s = ptd_log.phase_starts(st.client, mode), ptd_log.phase_starts(st.server, mode)
        rel = f"{ctx.power.rel}/server.json"
        if c is None or s is None or len(c) != len(s):
            yield finding(rel, f"phases.{mode} differ in count between client and server",
                          expected=len(c) if c else "a list", actual=len(s) if s else "none", pointer=f"/phases/{mode}")
            continue
        for i, (a, b) in enumerate(zip(c, s)):
            if abs(a - b) > tol / 1000:
                yield finding(rel, f"phase {i + 1} of {mode} differs by {abs(a - b) * 1000:.0f} ms between client and server",
                              expected=f"<= {tol} ms", actual=f"{abs(a - b) * 1000:.0f} ms",
                              pointer=f"/phases/{mode}/{i}", hint="synchronise the clocks (NTP) and rerun")
                break


@check("PW021", "testing-much-shorter-than-ranging", "result", when=has_power)
def testing_much_shorter_than_ranging(ctx, rules):
    """The testing run is much shorter than the ranging run.

    What it checks: (ranging duration - testing duration) / ranging duration, from the power_begin /
    power_end stamps, is at most `power.testing_duration_warning_ratio` (0.5).
    Why: Power WG checker sub-check 6 raises CheckerWarning (passes with a warning). Graded warning.
    Failing example: ranging 600 s, testing 120 s.
    How to fix: run ranging and testing with the same settings.
    Data used: `power.testing_duration_warning_ratio`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    r, t = _epoch_window(st.ranging_window), _epoch_window(st.run_window)
    if r is None or t is None or r[1] - r[0] <= 0:
        return
    rd, td = r[1] - r[0], t[1] - t[0]
    diff = (rd - td) / rd
    if diff > rules.power.testing_duration_warning_ratio:
        yield finding(f"{_perf(ctx)}/run_1/mlperf_log_detail.txt",
                      f"testing run ({td:.2f} s) is {diff * 100:.2f}% shorter than ranging ({rd:.2f} s)",
                      expected=f"at most {rules.power.testing_duration_warning_ratio * 100:g}% shorter",
                      actual=f"{diff * 100:.2f}%")


@check("PW022", "ptd-replies-unexpected", "result", when=has_power)
def ptd_replies_unexpected(ctx, rules):
    """PTD answered a command unexpectedly, or the initial ranges were not restored.

    What it checks: in server.json `ptd_messages`: every `SR,A`/`SR,V` reply is `Range A/V changed`,
    every `Go,1000,` reply starts an untimed measurement of 500000 samples at 1000 ms, `Stop` replies
    `Stopping untimed measurement` (the third: `Error: no measurement to stop`), and the third
    `SR,A`/`SR,V` (v5.1: the last one) restores the range read from the `RR` reply.
    Why: Power WG checker sub-check 3 ("Check PTD commands and replies"); invalid (I5). The v5.1
    official verdicts accept sessions whose client sends `SR,A,Auto` twice (GATEOverflow, Lenovo
    whisper), so from v5.1 the last SR command is the one that must restore the range.
    Failing example: `Go,1000,0,...` answered `Error: measurement already running`.
    How to fix: run the official power client/server unmodified and rerun.
    Data used: `power.range_restore_command`.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.server is None:
        return
    ident = ptd_log.identify(st.server)
    if ident is None or ident.version not in rules.power.ptd_versions or ident.model not in rules.power.analyzer_models:
        return  # PW004 / PW005: the official sub-check stops there
    problems = ptd_log.reply_problems(st.server, rules.power.range_restore_command)
    if problems:
        yield finding(f"{ctx.power.rel}/server.json", f"unexpected PTD reply: {problems[0]}",
                      expected="the replies of an unmodified PTD session", actual="; ".join(problems)[:300],
                      pointer="/ptd_messages", count=len(problems))


@check("PW023", "client-server-messages-differ", "result", when=has_power)
def client_server_messages_differ(ctx, rules):
    """client.json and server.json record different command/reply lists or protocol versions.

    What it checks: both `messages` lists have the same length and commands, the same replies (except
    to `time`), and the first message's `mlcommons/power client vN` matches `server vN`.
    Why: Power WG checker sub-check 7 ("Check client server messages"); invalid (I5).
    Failing example: a server.json with one command more than client.json.
    How to fix: keep the two files of one session unmodified.
    Data used: none.
    Stricter than official: no.
    """
    if ctx.power is None:
        return
    st = _state(ctx, rules)
    if st.client is None or st.server is None:
        return
    problems = ptd_log.message_problems(st.client, st.server)
    if problems:
        yield finding(f"{ctx.power.rel}/server.json", f"client/server messages differ: {problems[0]}",
                      expected="identical message lists", actual=problems[0], pointer="/messages")


CHECKS = (power_files_mismatch, no_power_samples_in_window, power_window_not_covered, ptd_version_not_allowed,
          analyzer_not_allowed, uncertainty_above_limit, ptd_log_error_outside_ranging, ptd_log_warning,
          power_session_mismatch, ptd_debug_enabled, testing_power_below_ranging, power_log_unparseable,
          ptd_log_missing, power_session_json_invalid, uncertainty_check_not_activated,
          ptd_ranging_window_missing, ptd_log_error_masked, power_log_stray_lines, loadgen_outside_ptd_phase,
          client_server_clock_skew, testing_much_shorter_than_ranging, ptd_replies_unexpected,
          client_server_messages_differ)
