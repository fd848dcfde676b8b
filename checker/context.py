"""Typed, immutable views of a parsed submission tree, handed to checks.

The loaders build these once; checks only read them. Paths are relative to the
submission root (the folder holding ``closed/``, ``open/``, ``network/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from checker.fast_init import fast_init
from checker.loaders.fs import Listing
from checker.loaders.json_keys import DuplicateKey
from checker.loaders.loadgen_log import DetailLog
from checker.metrics.power import SplParse
from checker.metrics.ptd_read import PtdLog

if TYPE_CHECKING:
    from checker.loaders.compliance_folder import ComplianceRecord
    from checker.loaders.endpoint import EndpointCtx
    from checker.loaders.inferred_copy import InferredCopy


@fast_init
@dataclass(frozen=True)
class ParsedLog:
    """A detail log, or why it could not be parsed, and the summary log beside it."""

    rel: str
    log: DetailLog | None = None
    error: str | None = None
    # the mlperf_log_summary.txt next to it (LoadGen's digest of the same run), when the detail log parsed
    summary_rel: str | None = None
    summary: dict[str, str] | None = None
    summary_error: str | None = None


@dataclass(frozen=True)
class RootCtx:
    """The submission root: its division folders and the folders that are none."""

    root: str
    division_dirs: tuple[str, ...]
    unknown_dirs: tuple[str, ...]
    stray_files: tuple[str, ...]
    focus: str  # "root", or the division / submitter path the user asked for
    published_files: tuple[str, ...] = ()  # the round's known published-repository files found at the root


@dataclass(frozen=True)
class DivisionCtx:
    """One division folder and the files directly in it."""

    division: str
    rel: str
    files: tuple[str, ...]
    submitters_without_results: tuple[str, ...] = ()  # submitter folders with no results folder


@dataclass(frozen=True)
class PathIssue:
    """A path the walk could not use (a link leaving the tree, an unreadable folder), with why."""

    rel: str
    detail: str = ""


@fast_init
@dataclass(frozen=True)
class SubmitterCtx:
    """One submitter folder: its listings and the paths the walk could not use."""

    division: str
    submitter: str
    rel: str
    broken_links: tuple[PathIssue, ...] = ()
    escaping_links: tuple[PathIssue, ...] = ()
    large_files: tuple[PathIssue, ...] = ()
    hidden_names: tuple[str, ...] = ()
    spaced_names: tuple[str, ...] = ()
    pycache_dirs: tuple[str, ...] = ()
    empty_dirs: tuple[str, ...] = ()
    walk_errors: tuple[PathIssue, ...] = ()
    systems: tuple[str, ...] = ()  # system names with a systems/<name>.json
    result_systems: tuple[str, ...] = ()
    measurement_systems: tuple[str, ...] = ()
    has_calibration: bool = False
    model_mapping: dict[str, str] | None = None
    model_mapping_rel: str | None = None
    model_mapping_error: str | None = None
    json_duplicates: tuple[tuple[str, DuplicateKey], ...] = ()  # (file, key written twice) of every JSON read


@fast_init
@dataclass(frozen=True)
class SystemCtx:
    """One system of a submitter: its description and the listings of its folders."""

    division: str
    submitter: str
    system: str
    rel: str  # systems/<system>.json path
    results_rel: str  # results/<system>
    exists: bool
    data: dict[str, Any] | None = None
    error: str | None = None
    duplicates: tuple[DuplicateKey, ...] = ()  # keys written twice (data holds the last value, as json does)
    # rounds with nameplate power (v6.1): systems/<system>_power.yaml when it exists, its sum (a
    # checker.metrics.nameplate.Nameplate) or why it could not be read
    nameplate_rel: str | None = None
    nameplate: Any = None
    nameplate_error: str | None = None

    @property
    def system_type(self) -> str | None:
        value = (self.data or {}).get("system_type")
        return value if isinstance(value, str) else None

    def is_network(self) -> bool:
        value = (self.data or {}).get("is_network")
        return str(value).strip().lower() == "true"


@fast_init
@dataclass(frozen=True)
class ModelCtx:
    """One model folder of a system: its results' scenarios and what is read of them."""

    division: str
    submitter: str
    system: SystemCtx
    model_dir: str
    mlperf_model: str
    rel: str  # results/<system>/<model_dir>
    scenario_dirs: tuple[str, ...]
    stray_files: tuple[str, ...]
    valid_perf_scenarios: tuple[str, ...] = ()  # canonical scenarios whose performance run passed (filled by engine)


@fast_init
@dataclass(frozen=True)
class MeasurementCtx:
    """The measurements folder of one result (user.conf, README.md, the implementation JSON)."""

    rel: str
    listing: Listing
    sizes: dict[str, int] = field(default_factory=dict)
    impl_json_name: str | None = None
    impl_json: Any = None
    impl_json_error: str | None = None
    impl_json_duplicates: tuple[DuplicateKey, ...] = ()
    conf_texts: dict[str, str] = field(default_factory=dict)  # mlperf.conf / user.conf
    power_files: dict[str, tuple[str | None, int]] = field(default_factory=dict)  # pattern -> (rel, size)


@fast_init
@dataclass(frozen=True)
class AccuracyCtx:
    """The accuracy folder of one result and what is read of its files."""

    rel: str
    listing: Listing
    accuracy_txt: str | None = None
    accuracy_txt_error: str | None = None
    log_rel: str | None = None
    log_size: int | None = None
    # Facts for the hash / truncation contract (official-checker.md F), filled by loaders/tree.py:
    log_truncation_marker: bool = False  # the official "\n\n...\n\n" separator follows the 4096-character head
    log_truncated_shape: bool = False  # exactly the official truncated form (8199 chars; CRLF variant accepted)
    log_full_sha256: str | None = None  # streaming sha256 of the whole log when it carries no truncation marker
    log_list_error: str | None = None  # logs <= the size limit that are not truncated: why they are not a complete
    #                                    JSON list of LoadGen entries (None: a complete list, or not examined)
    log_read_error: str | None = None  # the log could not be read (permissions, I/O error)
    log_entries: int | None = None  # entries of a complete log within the size limit (None: not counted)
    detail: ParsedLog | None = None
    image_names: tuple[str, ...] | None = None  # files under accuracy/images, None if no such dir


@fast_init
@dataclass(frozen=True)
class PowerCtx:
    """The power folders of one result and what is read of their logs."""

    rel: str  # performance/power
    power_listing: Listing
    ranging_listing: Listing
    run_samples: SplParse | None = None  # run_1/spl.txt, parsed (None when absent or unreadable)
    run_spl_error: str | None = None  # why run_1/spl.txt could not be read
    ranging_samples: SplParse | None = None  # ranging/spl.txt, parsed
    ranging_detail: ParsedLog | None = None
    ptd_log: PtdLog | None = None  # ptd_logs.txt, read (None when absent or unreadable)
    client_json: Any = None
    server_json: Any = None
    json_errors: dict[str, str] = field(default_factory=dict)
    json_duplicates: tuple[tuple[str, DuplicateKey], ...] = ()  # (client.json / server.json path, key)


@fast_init
@dataclass(frozen=True)
class ResultCtx:
    """One scenario result: ``<division>/<submitter>/results/<system>/<model>/<scenario>``."""

    division: str
    submitter: str
    system: SystemCtx
    model_dir: str
    mlperf_model: str
    scenario_dir: str
    scenario: str | None  # canonical name, None when the folder name is not a scenario
    rel: str
    perf_listing: Listing
    perf: ParsedLog | None
    accuracy: AccuracyCtx
    measurements: MeasurementCtx
    code_rel: str
    code_exists: bool
    compliance_rel: str
    compliance_exists: bool
    power: PowerCtx | None = None
    round_name: str = ""
    submission_root: str = ""  # absolute path of the submission root (for verifiers that read files)
    leftover_dirs: tuple[str, ...] = ()  # folders of an older layout inside the result folder (layout.leftover_result_dirs)
    model_scenario_dirs: tuple[str, ...] = ()  # the scenario folders of the result's model folder (ST025)
    endpoint: EndpointCtx | None = None  # the parsed files of an endpoint result (no LoadGen logs), v6.1+
    # (detail log, output tokens per sample) of the other performance runs of the same model on the same
    # system: the sibling scenarios' runs and the result's own compliance runs (token-logging results only; PF026)
    output_lengths: tuple[tuple[str, float], ...] = ()
    compliance: ComplianceRecord | None = None  # its compliance folder as read for the verification (closed, network)
    # an inferred result (its run's scenario is one its folder's can be inferred from): its folder compared
    # with the source scenario's folder next to it, by the load stage (PF020); None: not one, or no source folder
    inferred_copy: InferredCopy | None = None

    @property
    def result_id(self) -> str:
        return self.rel

    @property
    def log_scenario(self) -> str | None:
        return self.perf.log.scenario if self.perf and self.perf.log else None


@dataclass(frozen=True)
class RoundCtx:
    """Every result of the checked tree at once, for checks that compare results with each other
    (plausibility peers, Server/Offline ratios). Built after all submitters were checked."""

    root: str
    results: tuple  # tuple[ResultSummary, ...]
    # what round checks computed of the results submitter by submitter while they were checked, by name (the
    # plausibility checks' "plausibility": a ``checker.checks.plausibility.RoundPart``), or None; a check
    # uses it only where it covers exactly ``results``
    precomputed: dict | None = field(default=None, compare=False, repr=False)
