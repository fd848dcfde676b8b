"""Typed records of the files an endpoint result holds (MLPerf Inference v6.1, ``inference-endpoint``).

A scenario measured through an inference endpoint instead of LoadGen has no detail log; it has:

* ``config.yaml``: the resolved benchmark configuration (``EndpointConfig``);
* ``result_summary.json``: the performance rollup (``RunSummary``), in nanoseconds, samples/s and tokens/s;
* ``accuracy_results.json``: one entry per scored dataset (``AccuracyResults``), each on its scorer's scale;
* ``final_snapshot.json``: the metrics aggregator's last snapshot (``Snapshot``);
* ``audit/audit_<test>.json`` and ``audit/verify_<TEST>.txt``: the output-caching audit (``AuditResult``).

The models accept keys they do not name (later tool versions add some: ``n_samples_succeeded``,
``n_samples_dropped``, ``steady_state`` ...) but type-check the ones the checks read, strictly: a count
written as a string or a seed written as a float is a validation error with its location, which the
loader turns into a coded finding. Numbers are never coerced from strings.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Number = float  # strict mode still accepts an int where a float is expected


class _Open(BaseModel):
    """Known keys are typed; unknown keys are kept (later tool versions add some)."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True, defer_build=True)


class Series(_Open):
    """One series block (``ttft``, ``tpot``, ``latency`` in ns; sequence lengths in tokens). An empty block
    (``{}``: no streaming, no tokenizer) parses with every field ``None``."""

    total: Number | None = None
    min: Number | None = None
    max: Number | None = None
    median: Number | None = None
    avg: Number | None = None
    std_dev: Number | None = None
    percentiles: dict[str, Number | None] | None = None
    early_stopping_percentiles: dict[str, Number | None] | None = None
    histogram: dict[str, Any] | None = None

    @property
    def empty(self) -> bool:
        return self.total is None and self.avg is None and not self.percentiles


class RunConfig(_Open):
    """``result_summary.json`` ``run_config``: what the run actually used (written at run time)."""

    load_pattern: dict[str, Any] | None = None
    warmup: dict[str, Any] | None = None
    scheduler_random_seed: int | None = None
    dataloader_random_seed: int | None = None


class RunSummary(_Open):
    """``performance/result_summary.json``. Counts are inside the performance window; a failed query is
    counted as completed too (tool versions up to ea332753)."""

    version: str | None = None
    git_sha: str | None = None
    test_started_at: int | None = None
    n_samples_issued: int | None = None
    n_samples_completed: int | None = None
    n_samples_failed: int | None = None
    n_samples_succeeded: int | None = None  # later tool versions
    n_samples_dropped: int | None = None  # later tool versions
    duration_ns: int | None = None
    state: str | None = None
    complete: bool | None = None
    ttft: Series | None = None
    tpot: Series | None = None
    latency: Series | None = None
    output_sequence_lengths: Series | None = None
    input_sequence_lengths: Series | None = None
    legacy_loadgen_window_duration_ns: int | None = None
    qps: Number | None = None
    tps: Number | None = None
    finish_reason_counts: dict[str, int] | None = None
    run_config: RunConfig | None = None

    @property
    def generation(self) -> str:
        """Which shape of the file this is: the ea332753 keys, or the later ones."""
        later = [k for k in ("n_samples_succeeded", "n_samples_dropped", "steady_state",
                             "output_sequence_lengths_full_run") if k in (self.model_extra or {}) or
                 getattr(self, k, None) is not None]
        return "later keys (" + ", ".join(later) + ")" if later else "ea332753 keys"


class Runtime(_Open):
    min_duration_ms: int | None = None
    max_duration_ms: int | None = None
    n_samples_to_issue: int | None = None
    scheduler_random_seed: int | None = None
    dataloader_random_seed: int | None = None
    # the Endpoints benchmark's seed names (a later generation)
    scheduler_rng_seed: int | None = None
    sample_index_rng_seed: int | None = None


class LoadPattern(_Open):
    type: str | None = None
    target_qps: Number | None = None
    target_concurrency: int | None = None
    use_legacy_loadgen_qps_metrics: bool | None = None


class Settings(_Open):
    runtime: Runtime | None = None
    load_pattern: LoadPattern | None = None
    warmup: dict[str, Any] | None = None
    early_stopping: dict[str, Any] | None = None


class AccuracyConfig(_Open):
    eval_method: str | None = None
    num_repeats: int | None = None


class DatasetConfig(_Open):
    name: str | None = None
    type: str | None = None
    accuracy_config: AccuracyConfig | None = None


class EndpointConfig(_Open):
    """``config.yaml``: the resolved configuration the tool wrote before the run (it may be edited later:
    ``result_summary.json`` ``run_config`` is what the run recorded)."""

    name: str | None = None
    version: str | None = None
    type: str | None = None
    benchmark_mode: str | None = None
    model_params: dict[str, Any] | None = None
    datasets: list[DatasetConfig] | None = None
    settings: Settings | None = None
    submission_ref: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value):  # YAML reads an unquoted 1.0 as a float
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value

    @property
    def runtime(self) -> Runtime:
        return (self.settings.runtime if self.settings else None) or Runtime()

    @property
    def streaming(self) -> str | None:
        value = (self.model_params or {}).get("streaming")
        return str(value).lower() if value is not None else None

    def eval_method(self, dataset_name: str) -> str | None:
        for dataset in self.datasets or ():
            if dataset.name == dataset_name and dataset.accuracy_config:
                return dataset.accuracy_config.eval_method
        return None


class ResponseCounts(_Open):
    issued: int | None = None
    scored: int | None = None
    empty: int | None = None
    missing: int | None = None


class AccuracyEntry(_Open):
    dataset_name: str | None = None
    score: Number | dict[str, Any] | None = None
    unit_samples: int | None = None
    num_repeats: int | None = None
    total_samples: int | None = None
    duration_s: Number | None = None
    complete: bool | None = None
    dataset_type: str | None = None
    breakdown: dict[str, Any] | None = None
    response_counts: ResponseCounts | None = None

    @property
    def is_performance(self) -> bool:
        return self.dataset_type == "performance"


class AccuracyResults(_Open):
    """``accuracy/accuracy_results.json``: scores on each scorer's own scale (fraction or percent)."""

    average_accuracy: Number | None = None
    accuracy_scores: list[AccuracyEntry] = Field(default_factory=list)

    @field_validator("accuracy_scores", mode="before")
    @classmethod
    def _mapping_shape(cls, value):  # the Endpoints CLI's shape: {dataset name: entry}
        if isinstance(value, dict):
            return [dict(entry, dataset_name=entry.get("dataset_name", name)) if isinstance(entry, dict) else entry
                    for name, entry in value.items()]
        return value

    @property
    def scored(self) -> list[AccuracyEntry]:
        """The accuracy entries (``dataset_type: performance`` excluded)."""
        return [e for e in self.accuracy_scores if not e.is_performance]


class SnapshotMetric(_Open):
    type: Literal["counter", "series"] | str | None = None
    name: str | None = None
    value: Number | None = None
    count: int | None = None
    total: Number | None = None


class Snapshot(_Open):
    """``metrics/final_snapshot.json``: the aggregator's terminal snapshot."""

    state: str | None = None
    n_pending_tasks: int | None = None
    metrics: list[SnapshotMetric] = Field(default_factory=list)

    def counter(self, name: str):
        for metric in self.metrics:
            if metric.name == name and metric.type == "counter":
                return metric.value
        return None


class AuditResult(_Open):
    """``audit/audit_<test>.json`` written by the output-caching audit (TEST04)."""

    test: str | None = None
    passed: bool | None = None
    ref_qps: Number | None = None
    audit_qps: Number | None = None
    threshold: Number | None = None
    ref_completed: int | None = None
    ref_requested: int | None = None
    audit_completed: int | None = None
    audit_requested: int | None = None
    reason: str | None = None


SCHEMA_MODELS = {
    "endpoint-config": EndpointConfig, "endpoint-result-summary": RunSummary,
    "endpoint-accuracy-results": AccuracyResults, "endpoint-final-snapshot": Snapshot,
    "endpoint-audit": AuditResult,
}


def build_validators() -> None:
    """Build the validators of the file records (about 10 ms; deferred, so that a round without endpoint results
    never builds them). The parallel check builds them before it forks its workers (``pipeline.warm_up``): each
    worker would build them again on its first endpoint result."""
    for model in SCHEMA_MODELS.values():
        model.model_rebuild()


def json_schemas() -> dict[str, dict]:
    """The JSON Schema of each endpoint file, by the name of its committed file under ``schemas/``."""
    return {name: model.model_json_schema() for name, model in SCHEMA_MODELS.items()}
