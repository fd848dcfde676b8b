"""The power folders of a result (`performance/power`, `performance/ranging`, `run_1/spl.txt`), read
once and parsed into the records the power checks and the summary use: `spl.txt` into `SplParse`
columns, `ptd_logs.txt` into a `PtdLog`, the session JSON files with their duplicate keys. No raw
log text is kept."""

from __future__ import annotations

from typing import Callable

from checker.context import ParsedLog, PowerCtx
from checker.loaders.fs import Sandbox
from checker.metrics.power import parse_spl
from checker.metrics.ptd_read import read_ptd_log

LOG_LIMIT = 64 * 1024 * 1024  # spl.txt and ptd_logs.txt
JSON_LIMIT = 32 * 1024 * 1024  # client.json and server.json


def load_power(box: Sandbox, perf_rel: str, parse_log: Callable[[Sandbox, str], ParsedLog | None]
               ) -> PowerCtx | None:
    """The power context of the result whose `performance` folder is ``perf_rel``; None when it has no
    `power` folder. ``parse_log`` reads the ranging run's detail log (as the run_1 one is read)."""
    power_rel = f"{perf_rel}/power"
    if not box.is_dir(power_rel):
        return None
    ranging_rel = f"{perf_rel}/ranging"
    run_spl, run_spl_err = box.read_text_bytes(f"{perf_rel}/run_1/spl.txt", limit=LOG_LIMIT)
    ranging_spl, _ = box.read_text_bytes(f"{ranging_rel}/spl.txt", limit=LOG_LIMIT)
    ptd, _ = box.read_text_bytes(f"{power_rel}/ptd_logs.txt", limit=LOG_LIMIT)
    errors: dict[str, str] = {}
    client, err, client_dups = box.read_json_keys(f"{power_rel}/client.json", limit=JSON_LIMIT)
    if err:
        errors["client.json"] = err
    server, err, server_dups = box.read_json_keys(f"{power_rel}/server.json", limit=JSON_LIMIT)
    if err:
        errors["server.json"] = err
    dups = tuple((f"{power_rel}/client.json", d) for d in client_dups) + tuple(
        (f"{power_rel}/server.json", d) for d in server_dups)
    return PowerCtx(rel=power_rel, power_listing=box.listing(power_rel), ranging_listing=box.listing(ranging_rel),
                    run_samples=parse_spl(run_spl) if run_spl is not None else None, run_spl_error=run_spl_err,
                    ranging_samples=parse_spl(ranging_spl) if ranging_spl is not None else None,
                    ranging_detail=parse_log(box, f"{ranging_rel}/mlperf_log_detail.txt"),
                    ptd_log=read_ptd_log(ptd) if ptd is not None else None,
                    client_json=client, server_json=server, json_errors=errors, json_duplicates=dups)
