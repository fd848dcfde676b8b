"""Strict pydantic models of ``audits/``: the compliance tests' files and pass criteria per round.

``audits/TEST0x/spec.yaml`` loads into :class:`TestSpec`, ``audits/rounds.yaml`` into
:class:`RoundsFile`. Unknown keys are errors (``extra='forbid'``); numbers live in the YAML.
"""

# (no `from __future__ import annotations`: pydantic reads the models' field types as Python made them, instead of
# evaluating the text of each annotation when the class is made, a few ms of every start-up)

from typing import Literal

from pydantic import Field, field_validator

from checker.models.record_methods import RoundAuditSpecMethods, SeedsMethods, TestRoundMethods

from checker.models.audit_names import SCENARIOS, TEST_NAMES  # noqa: E402,F401  (imported from here too)


from checker.models.rules import _Strict  # noqa: E402  (one strict base for every data file)


class Seeds(SeedsMethods, _Strict):
    qsl_rng_seed: int
    sample_index_rng_seed: int
    schedule_rng_seed: int


class RoundInfo(_Strict):
    seeds: Seeds
    test05_seeds: Seeds | None = None
    accuracy_log_rng_seed: int
    model_aliases: dict[str, str] = Field(default_factory=dict)
    # mlcommons-loadgen releases whose built-in mlperf.conf carries these seeds (the live runner
    # refuses another release unless told to accept the installed seeds)
    loadgen_releases: list[str] = Field(default_factory=list)


class RoundsFile(_Strict):
    rounds: dict[str, RoundInfo]
    loadgen_model_names: dict[str, str]


class DirFileSet(_Strict):
    """A directory whose file set must be exactly ``required`` (+ ``optional``)."""

    required: list[str]
    optional: list[str] = Field(default_factory=list)
    required_if_not_deterministic: list[str] = Field(default_factory=list)
    only_if_not_deterministic: bool = False  # v6.0 J7: TEST01/accuracy is checked only after a failed deterministic check


class FileRules(_Strict):
    required: list[str]
    recommended: list[str] = Field(default_factory=list)
    exact_dirs: dict[str, DirFileSet] = Field(default_factory=dict)


class PerformanceRule(_Strict):
    """How a test run's score is compared with the submission run's score."""

    direction: Literal["two-sided", "not-faster", "not-worse"]
    threshold_pct: float = Field(gt=0)
    relaxed_threshold_pct: float = Field(gt=0)
    relax_when_reference_at_most: dict[str, float] = Field(default_factory=dict)
    relax_after_conversion: bool = False
    latency_as_throughput: bool = False
    inclusive_bounds: bool = False
    require_valid: bool = True
    seeds: Literal["submission", "test05"] = "submission"
    score_keys: dict[str, list[str]]

    @field_validator("relax_when_reference_at_most", "score_keys")
    @classmethod
    def _known_scenarios(cls, value: dict) -> dict:
        unknown = sorted(set(value) - set(SCENARIOS))
        if unknown:
            raise ValueError(f"unknown scenario(s): {unknown}")
        return value


class AccuracyRule(_Strict):
    """TEST01: deterministic comparison and the non-deterministic fallback."""

    min_matched: int = 1
    default_delta_pct: float
    delta_pct_99_9: float
    delta_pct_overrides: dict[str, dict[str, float]] = Field(default_factory=dict)
    metric_lookup: Literal["full-name", "first-character"]
    metrics: dict[str, list[str]]
    patterns: dict[str, str]


class LlmOutputRule(_Strict):
    """TEST06: EOS, first-token and length checks."""

    eos_token_id: dict[str, int]
    official_first_token_skip_scenarios: list[str]
    strict_first_token_skip_scenarios: list[str]
    default_dtype_bytes: Literal[4, 8] = 8


class ScoreRule(_Strict):
    """TEST07: the accuracy score of the compliance-dataset run against a threshold."""

    metric: str
    pattern: str  # re.search, first match, in verify_accuracy.txt (the accuracy script's output)
    threshold: float  # PASS iff score >= threshold
    samples: int = Field(gt=0)  # size of the compliance dataset: every sample is logged and scored


class NeMatchRule(_Strict):
    """TEST08: per-sample normalised entropy of matched (ts_idx, query_idx) pairs."""

    tolerance_pct: float = Field(gt=0)  # relative NE difference allowed, in percent
    clip: float = Field(gt=0, lt=0.5)  # predictions and labels clipped to [clip, 1 - clip]


class LengthBounds(_Strict):
    """TEST09: inclusive bounds of the mean output length in tokens."""

    min: float = Field(ge=0)
    max: float = Field(gt=0)


class TestRound(TestRoundMethods, _Strict):
    models: list[str]
    files: FileRules
    verify_file: str
    pass_line: Literal["substring", "exact"] = "substring"  # how the checker reads TEST PASS in verify_file
    performance: PerformanceRule | None = None
    audit_settings: dict[str, int | bool | float | str] = Field(default_factory=dict)
    audit_settings_from_config: bool = False  # the test run must also show its audit.config settings
    # LoadGen settings of this round beyond audit.config, per LoadGen model name ('*': every model)
    run_settings: dict[str, dict[str, str]] = Field(default_factory=dict)
    accuracy: AccuracyRule | None = None
    llm_output: LlmOutputRule | None = None
    score: dict[str, ScoreRule] = Field(default_factory=dict)  # TEST07, per model
    ne_match: NeMatchRule | None = None  # TEST08
    output_length: dict[str, LengthBounds] = Field(default_factory=dict)  # TEST09, per model
    token_bytes: Literal[4, 8] = 4  # TEST09: bytes per token id in the accuracy log


class TestSpec(_Strict):
    test: Literal["TEST01", "TEST04", "TEST05", "TEST06", "TEST07", "TEST08", "TEST09"]
    name: str
    summary: str
    rounds: dict[str, TestRound]


class RoundAuditSpec(RoundAuditSpecMethods, _Strict):
    """Everything the compliance verification needs for one round (assembled by the loader)."""

    round: str
    info: RoundInfo
    tests: dict[str, TestRound]  # only the tests that exist in this round
    loadgen_model_names: dict[str, str]
