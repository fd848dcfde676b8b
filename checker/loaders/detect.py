"""Detect the round of a submission tree from its LoadGen logs (seeds first, then version), and from the
seeds its endpoint results recorded (v6.1+: no LoadGen log at all)."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import TYPE_CHECKING


from checker.diagnostics import MlpcError
from checker.loaders import yaml_text
from checker.loaders.loadgen_log import LogReadError, parse_detail_head
from checker.loaders.rules import available_rounds, load_rules

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules

MAX_LOGS = 40
MAX_ENDPOINT_FILE = 16 * 1024 * 1024
SEED_KEYS = ("effective_qsl_rng_seed", "effective_sample_index_rng_seed", "effective_schedule_rng_seed")
#: what a sampled log is read for (from its head when they are all there: see parse_detail_head)
VOTE_KEYS = (*SEED_KEYS, "loadgen_version")


def _sample_logs(root: str, limit: int = MAX_LOGS, endpoint: list | None = None) -> list[str]:
    """Performance detail logs of submission runs; ``endpoint`` collects the result summaries and
    configurations of endpoint results met on the way."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        # compliance runs (the v4.1-v5.1 compliance/ tree, the v6.0 TEST0x folders inside a result) may
        # carry other seeds on purpose (TEST05) or by mistake; only submission runs vote
        dirnames[:] = [d for d in dirnames if d != "compliance" and not (d.startswith("TEST") and d[4:].isdigit())]
        if "mlperf_log_detail.txt" in filenames and dirpath.endswith(os.path.join("performance", "run_1")):
            found.append(os.path.join(dirpath, "mlperf_log_detail.txt"))
            if len(found) >= limit:
                break
        elif endpoint is not None and len(endpoint) < limit and "mlperf_log_detail.txt" not in filenames:
            endpoint += [os.path.join(dirpath, name) for name in ("result_summary.json", "config.yaml")
                         if name in filenames and "audit" not in dirpath.split(os.sep)]
    return found


def sampled_seeds(root: str) -> list[dict[str, object]]:
    """The effective seeds of up to MAX_LOGS performance logs under ``root`` (unreadable logs skipped)."""
    out = []
    for path in _sample_logs(root):
        try:
            log = parse_detail_head(path, SEED_KEYS)
        except LogReadError:
            continue
        out.append({key[len("effective_"):]: log.get(key) for key in SEED_KEYS})
    return out


def _endpoint_seeds(path: str) -> tuple | None:
    """(dataloader, scheduler) seeds an endpoint file records: result_summary.json ``run_config`` or
    config.yaml ``settings.runtime``; None when unreadable or absent (never raises)."""
    try:
        if os.path.getsize(path) > MAX_ENDPOINT_FILE:
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        if path.endswith(".json"):
            data = json.loads(text).get("run_config") or {}
        else:
            data = ((yaml_text.safe_load(text) or {}).get("settings") or {}).get("runtime") or {}
        pair = (data.get("dataloader_random_seed"), data.get("scheduler_random_seed"))
        return pair if all(isinstance(v, int) for v in pair) else None
    except (OSError, ValueError, AttributeError, RecursionError, yaml_text.YAMLError):
        return None


def detect_round(root: str) -> tuple[str, str]:
    """Return (round, human-readable reason). Raises MlpcError when it cannot decide."""
    rounds = {name: load_rules(name) for name in available_rounds()}
    seed_votes: Counter = Counter()
    version_votes: Counter = Counter()
    versions: Counter = Counter()
    endpoint_files: list[str] = []
    logs = _sample_logs(root, endpoint=endpoint_files)
    for path in logs:
        try:
            log = parse_detail_head(path, VOTE_KEYS)
        except LogReadError:
            continue
        seeds = tuple(log.get(key) for key in SEED_KEYS)
        version = (log.loadgen_version or "").split(" @")[0].strip()
        versions[version] += 1
        for name, rules in rounds.items():
            s = rules.seeds
            if seeds == (s.qsl_rng_seed, s.sample_index_rng_seed, s.schedule_rng_seed):
                seed_votes[name] += 1
            if any(version == v or version.startswith(v + ".") for v in rules.loadgen_versions):
                version_votes[name] += 1
    endpoint_votes: Counter = Counter()
    for path in endpoint_files:
        pair = _endpoint_seeds(path)
        for name, rules in rounds.items():
            if rules.endpoint is not None and pair == (rules.seeds.sample_index_rng_seed, rules.seeds.schedule_rng_seed):
                endpoint_votes[name] += 1
    if not logs and endpoint_votes:
        name, votes = endpoint_votes.most_common(1)[0]
        return name, f"no LoadGen logs; {votes} of {len(endpoint_files)} endpoint result files record the {name} seeds"
    if not logs:
        raise MlpcError(f"cannot detect the round: no performance log (<division>/<submitter>/results/<system>/"
                        f"<model>/<scenario>/performance/run_1/mlperf_log_detail.txt) under {root}; "
                        f"if it is a submission tree, pass --round ({', '.join(rounds)})")
    seen = ", ".join(f"{v or '?'} x{n}" for v, n in versions.most_common(3))
    if seed_votes:
        name, votes = seed_votes.most_common(1)[0]
        extra = f"; {endpoint_votes[name]} endpoint result files agree" if endpoint_votes.get(name) else ""
        return name, f"{votes} of {len(logs)} sampled performance logs carry the {name} seeds (LoadGen {seen}){extra}"
    if version_votes:
        name, votes = version_votes.most_common(1)[0]
        return name, f"{votes} of {len(logs)} sampled logs have a LoadGen version of round {name} ({seen}); seeds match no round"
    raise MlpcError(f"cannot detect the round: LoadGen versions {seen} and seeds match no known round "
                    f"({', '.join(rounds)}); pass --round")


def rules_for(root: str, round_name: str | None = None) -> tuple[RoundRules, str]:
    """The rules of ``round_name`` (``--round``) or of the round detected in ``root``, with the reason
    a report states. Raises MlpcError for an unknown or undetectable round."""
    if round_name:
        return load_rules(round_name), "selected with --round"
    name, reason = detect_round(root)
    return load_rules(name), reason
