"""The strict pydantic model of one round file (``rules/<round>.yaml``).

Everything that changes between rounds lives in the round file; this model only
describes its shape. Unknown keys are errors (``extra="forbid"``), so a typo in
a round file fails loudly instead of silently falling back to a default.
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from checker.models.record_methods import LayoutMethods, ModelRulesMethods, RoundRulesMethods

SeverityName = Literal["error", "warning", "info", "off"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Seeds(_Strict):
    qsl_rng_seed: int
    sample_index_rng_seed: int
    schedule_rng_seed: int


# Who enforces a bound: "both" (the rules and the official checker agree), "rules" (the rules' bound where the
# official checker's is wrong: AC013, stricter than official) or "official" (the official checker's wrong bound,
# graded only by the `official` profile: AC012).
BoundSource = Literal["both", "rules", "official"]


class AccuracyTarget(_Strict):
    metric: str
    target: float
    expression: str | None = None  # how the target was derived, e.g. "76.46*0.99"
    source: BoundSource = "both"
    scenarios: list[str] | None = None  # the scenario folders it applies to (None: every one); v6.1 qwen3-vl


class AccuracyLimit(_Strict):
    metric: str
    limit: float
    expression: str | None = None
    source: BoundSource = "both"


class TokenLimits(_Strict):
    ttft_ns: int
    tpot_ns: int


class EndpointAccuracy(_Strict):
    """The accuracy gate of an endpoint result: which of the model's targets (``models.*.accuracy``) the
    endpoint scorer's score is compared with, and the scale that target is on."""

    metric: str  # a metric of models.*.accuracy
    scale: Literal["fraction", "percent"]  # the scale of that target
    # False when the round never related the endpoint scorer's number to this target (the official
    # endpoint path does not gate the model); a miss is then reported by its own code
    established: bool = True


class ModelEndpoint(_Strict):
    """What an endpoint result (``inference-endpoint`` files instead of LoadGen logs) of this model must show."""

    accuracy: EndpointAccuracy | None = None
    # scenario -> accuracy samples, where a scenario differs from the model's accuracy_sample_count / dataset_size
    accuracy_sample_count: dict[str, int] = Field(default_factory=dict)
    latency_bounds_ns: dict[str, int] = Field(default_factory=dict)  # scenario -> bound on the ES latency percentile
    test09_osl_bounds: list[float] | None = None  # [low, high] on output_sequence_lengths.avg (inclusive)
    result_metric: dict[str, str] = Field(default_factory=dict)  # scenario -> qps | tps | latency_avg


class ModelRules(ModelRulesMethods, _Strict):
    required_scenarios: dict[str, list[str]]  # system type -> scenarios
    optional_scenarios: dict[str, list[str]] = Field(default_factory=dict)
    one_of_scenarios: list[list[str]] = Field(default_factory=list)
    accuracy: list[AccuracyTarget]
    upper_limits: list[AccuracyLimit] = Field(default_factory=list)
    accuracy_delta_perc: dict[str, float] = Field(default_factory=dict)
    performance_sample_count: int
    offline_min_samples_per_query: int | None = None
    dataset_size: int | None = None
    accuracy_sample_count: int | None = None  # accuracy-run coverage when it differs from dataset_size (v6.0+)
    server_latency_ns: int | None = None
    token_latency: dict[str, TokenLimits] = Field(default_factory=dict)  # scenario -> limits
    requires_token_latencies: bool = False
    result_field: dict[str, str] = Field(default_factory=dict)  # scenario -> log key override
    units: dict[str, str] = Field(default_factory=dict)  # scenario -> unit override
    result_in_seconds: list[str] = Field(default_factory=list)  # latency scenarios reported in s, not ms
    equal_issue: bool = False
    equal_issue_divisions: list[str] = Field(default_factory=lambda: ["closed", "network"])
    compliance_tests: list[str] = Field(default_factory=list)
    extra_accuracy_images: list[str] = Field(default_factory=list)
    loadgen_name: str | None = None  # name used in mlperf.conf / user.conf keys
    endpoint: ModelEndpoint | None = None  # may be measured through an inference endpoint (v6.1+)
    min_duration_ms: int | None = None  # overrides the round's min_duration_ms (v6.1 e2e-rag: exempt)
    # PF025: LoadGen's inferred token rate is the sample rate times this (gptj token_latency_scaling_factor)
    inferred_tokens_per_sample: float | None = None
    # PF026: characters of generated text per output token (accuracy.txt gen_len / gen_num over the performance
    # run's tokens per sample), for models whose results state their output length in characters only
    output_chars_per_token: list[float] | None = None


class SystemFields(_Strict):
    required: list[str]
    meaningful: list[str]
    power: list[str]
    network: list[str]
    placeholders: list[str] = Field(default_factory=list)
    optional: list[str] = Field(default_factory=list)  # fields any system may carry (v6.1: system_power_capacity)


class PowerRules(_Strict):
    ptd_versions: list[str]
    required_power_files: list[str]
    required_ranging_files: list[str]
    required_run_files_extra: list[str]
    measure_file_patterns: list[str]
    measure_file_ancestor_depth: int = 3
    analyzer_models: dict[str, int] = Field(default_factory=dict)
    # Power WG power_checker constants (official-checker.md section I, sub-checks 3, 6, 9)
    time_delta_tolerance_ms: int = 800
    dst_workaround_s: int = 3600
    testing_power_min_delta_percent: float = -5.0
    testing_duration_warning_ratio: float = 0.5
    max_sample_gap_s: float = 2.0  # mlpc's own coverage check (PW003, stricter)
    ptd_common_ranging_errors: list[str] = Field(default_factory=lambda: [
        "Can't evaluate uncertainty of this sample!", "Bad watts reading nan from ", "Bad amps reading nan from ",
        "Bad pf reading nan from ", "Bad volts reading nan from ", "Current appears to be too high for set range"])
    ptd_testing_errors_as_warnings: list[str] = Field(default_factory=lambda: ["USB."])
    ptd_uncertainty_error_pattern: str = r"Uncertainty \d+.\d+%, which is above 1.00% limit for the last sample!"
    multichannel_devices: list[int] = Field(default_factory=lambda: [77])
    range_restore_command: int = 3  # which SR,A / SR,V command must restore the RR ranges (1-based; -1 = last)


class Layout(LayoutMethods, _Strict):
    """Where a round keeps the files of one result, relative to ``<division>/<submitter>/``.

    Templates use ``{system}``, ``{model}`` and ``{scenario}`` (the folder names as written). v4.1-v5.1
    keep separate ``measurements/`` and ``compliance/`` trees and ``code/<model>``; v6.0 folds both trees
    into the scenario folder and publishes the source under ``src/``.
    """

    system_json: str  # the system description
    result: str  # the scenario folder holding accuracy/ and performance/
    measurements: str  # folder with user.conf, README.md and the implementation JSON
    implementation_json: str | None  # its fixed file name; None: the first "<system>*.json" in the folder
    compliance: str  # folder holding TEST01/, TEST04/, ...
    code: str  # must exist; a file at this path names the real folder when code_redirect_file is true
    code_redirect_file: bool
    leftover_result_dirs: list[str]  # folders of an older layout that do not belong inside a result folder


class SummaryConventions(_Strict):
    """How the round's official writer fills some summary.csv columns (rounds-v6.md 8.1). The defaults
    are the v4.1-v5.1 writer's; v6.0 changed each of them."""

    availability: Literal["lower", "raw"] = "lower"  # the system's `status`, lower-cased or as written
    scenario: Literal["canonical", "folder"] = "canonical"  # canonical name, or the folder name as written
    compliance: Literal["passed", "division"] = "passed"  # 1/0 (tests passed), or the division's name
    # inferred: mlpc's rule (an edge result inferred from another scenario), or the official v6.x one: the
    # folder name differs, case-sensitively, from the log's effective_scenario
    inferred: Literal["rules", "log_scenario"] = "rules"
    location: Literal["result", "performance_run"] = "result"  # the result folder, or its performance/run_1
    missing_design_power: str = ""  # design_power_watts of a row without a nameplate value
    quote_all: bool = False  # every field in double quotes (v6.x), or only the v4.1 writer's set of columns


class PublishedTable(_Strict):
    """The round's published results table (`summary_results.json` at the root of the results
    repository), built from the accepted summary.csv rows (rounds-v6.md 8.2).

    ``final_report``: the final-report tool's records (columns renamed, ID, Details and Code links, Unique
    ID, ColorKey, Performance_Result/Units, a power row merged into its performance row); ``summary_rows``:
    the summary.csv columns as they are, one object per row keyed by its index ("0", "1", ...)."""

    shape: Literal["final_report", "summary_rows"]
    id_prefix: str = ""  # final report: IDs are "<prefix>-0001", ...
    repository: str = ""  # final report: base of the Details and Code links
    code_folder: str = "code"  # final report: the submitter folder the Code link points to
    renames: dict[str, str] = Field(default_factory=dict)  # summary.csv column -> published name
    location_prefix: str = ""
    scenario_names: dict[str, str] = Field(default_factory=dict)  # folder name as written -> published name
    model_names: dict[str, str] = Field(default_factory=dict)  # MLPerf model -> published MlperfModel
    integer_columns: list[str] = Field(default_factory=list)  # published names written as integers
    zero_as_empty: list[str] = Field(default_factory=list)  # integer columns whose 0 is published empty
    empty_values: list[str] = Field(default_factory=list)  # field texts the table publishes as missing
    missing: Literal["empty", "null"] = "empty"  # how a missing field is published
    decimals: int = 10  # Result is rounded to this many decimal places
class EndpointRules(_Strict):
    """Where a round's endpoint results keep their files and how they are read (v6.1+)."""

    loadgen_markers: list[str]  # a scenario folder holding one of these is a LoadGen result
    config_files: list[str]  # candidates, in order of preference (paths inside the scenario folder)
    summary_files: list[str]
    accuracy_files: list[str]
    snapshot_files: list[str]
    layouts: dict[str, str]  # where result_summary.json was found -> the layout's name
    audit_dir: str
    audit_tests: dict[str, str]  # compliance test -> audit name (audit/audit_<name>.json)
    audit_verify_files: dict[str, str]  # audit name -> its verification line file
    audit_subruns: dict[str, list[str]]  # audit name -> [reference phase, audited phase] folders
    audit_thresholds: dict[str, float]  # scenario -> threshold the audit must use
    required_audits: list[str]  # compliance tests whose audit file must exist (others: checked if present)
    max_file_bytes: int
    score_scales: dict[str, Literal["fraction", "percent"]]  # scorer (eval_method) -> scale of its score
    metric_rel_tolerance: float  # reported qps / tps vs recomputed
    latency_percentile: dict[str, str]  # scenario -> early-stopping percentile key gated against the bounds
    early_stopping_floor: dict[str, int]  # percentile key -> fewest samples that give an estimate
    config_types: dict[str, list[str]]  # scenario -> accepted config.yaml type / benchmark_mode
    load_patterns: dict[str, list[str]]  # scenario -> accepted settings.load_pattern.type
    streaming_scenarios: list[str]  # scenarios where a model with TTFT/TPOT limits must stream
    result_metric: dict[str, str]  # scenario -> qps | tps | latency_avg (models may override)
    also_run: list[str]  # codes of LoadGen-result checks that apply to endpoint results too


class RoundRules(RoundRulesMethods, _Strict):
    round: str
    description: str
    loadgen_versions: list[str]  # prefixes of the loadgen_version value that identify the round
    seeds: Seeds
    test05_seeds: Seeds | None = None
    divisions: list[str]
    root_ignored_dirs: list[str]
    root_allowed_file_suffixes: list[str]
    # files every published results repository carries at its root (ST023, info); not stray files
    root_published_files: list[str] = Field(default_factory=list)
    # system-scope codes that make the system description unusable, so that an error among them
    # invalidates every result of the system; other system errors fail the run only. None: every one.
    system_invalidating_codes: list[str] | None = None
    # codes whose errors fail the run and leave every result's verdict alone, whatever their scope (v5.1 B7:
    # a system description without results marks the submitter's results/ path, not its results)
    non_invalidating_codes: list[str] = Field(default_factory=list)
    availabilities: list[str]
    system_types: list[str]
    system_fields: SystemFields
    layout: Layout
    implementation_fields: list[str]
    required_measure_files: list[str]
    required_perf_files: list[str]
    optional_perf_files: list[str]
    required_acc_files: list[str]
    always_optional_files: list[str]
    detail_log_strict: bool = False  # v6.0+: a detail log line without the marker or non-UTF-8 bytes is an error
    extra_result_files_allowed: bool = False  # v6.0+: performance/run_1 and accuracy/ may hold other files
    file_size_limit_bytes: int
    max_accuracy_log_bytes: int
    min_duration_ms: int
    # the reported rate against the run's own record (PF025): an Offline run's result_samples_per_second x
    # result_max_latency_ns / samples issued lies in [low, high]; a Server run completes at most this many
    # times the samples per second it scheduled
    offline_rate_duration_band: list[float] | None = None
    server_completed_over_scheduled_max: float | None = None
    run_record_tolerance: float | None = None  # PF025: relative slack of the other detail-log relations
    power_window_band: list[float] | None = None  # PF025: implied run duration / LoadGen's power window
    power_window_slack_s: float = 0.0  # PF025: the stamps' resolution, added on each side of the window
    tokens_per_sample_band: list[float] | None = None  # PF026: perf tokens per sample / the accuracy run's
    scenario_dir_aliases: dict[str, str]
    scenarios: list[str]
    early_stopping_scenarios: list[str]
    inferable: list[list[str]]  # [directory scenario, log scenario] pairs an edge system may infer
    # v6.0: the official checker picks the TTFT/TPOT limits by the log's scenario (Server for an Interactive
    # folder); PF021 then holds Interactive folders to their own limits
    token_limits_by_log_scenario: bool = False
    log_scenario_sources: dict[str, str] = Field(default_factory=dict)  # dir scenario -> log scenario it must come from (v5.1 Interactive <- Server)
    open_accuracy_needs_metric: bool = False  # v5.1+: open accuracy is forced valid only if a metric was found
    model_aliases: dict[str, str]
    model_heuristics: list[list[str]]  # [substring, model], tried in order
    models: dict[str, ModelRules]
    removed_models: dict[str, str] = Field(default_factory=dict)  # model of an earlier round -> round that dropped it
    accuracy_patterns: dict[str, str]
    result_fields: dict[str, str]  # scenario -> log key
    units: dict[str, str]  # scenario -> unit
    power_units: dict[str, str]
    network_sut_substring: str
    calibration_required: bool = False
    systems_need_results: bool = False
    llm_validity_override_bug: bool = False
    dataset_coverage_logged: bool = False
    power: PowerRules
    summary_columns: list[str]
    summary_conventions: SummaryConventions = Field(default_factory=SummaryConventions)
    published_table: PublishedTable | None = None
    # v6.1: a power system's nameplate power YAML, relative to <division>/<submitter>/ (rounds-v6.md 6.2)
    nameplate_power_path: str | None = None
    endpoint: EndpointRules | None = None  # rounds that accept endpoint results (v6.1+)
    severities: dict[str, SeverityName]
    # severity overrides a named profile applies in this round (`--profile official`: the official checker's
    # verdicts where they differ from the rules)
    profiles: dict[str, dict[str, SeverityName]] = Field(default_factory=dict)
