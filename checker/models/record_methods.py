"""The methods of the data-file models, in plain mixins that the pydantic model and its record both inherit.

A check holds records of its data files (``checker.models.record``), made without pydantic; the validating
models (``checker.models.rules``, ``checker.models.audit_spec``, ``checker.models.appendix_b``) inherit these
classes too, so a method is written once and reads the same on either. Nothing here imports pydantic.
"""

from __future__ import annotations


class ModelRulesMethods:
    __slots__ = ()

    def targets_for(self, scenario: str | None) -> list:
        """The accuracy targets of a scenario folder (a target may name the scenarios it applies to)."""
        return [t for t in self.accuracy if t.scenarios is None or scenario in t.scenarios]


class LayoutMethods:
    __slots__ = ()

    def path(self, template: str, sub_rel: str, system: str, model: str = "", scenario: str = "") -> str:
        return f"{sub_rel}/" + template.format(system=system, model=model, scenario=scenario)

    def top_folder(self, template: str) -> str | None:
        """The submitter-level folder a tree template lives in, when it is not the results tree."""
        head = template.split("/", 1)[0]
        return None if head == self.result.split("/", 1)[0] else head


class RoundRulesMethods:
    __slots__ = ()

    def min_duration_for(self, mlperf_model: str) -> int:
        """The minimum run duration (ms) of a model: its own override, else the round's."""
        model = self.models.get(mlperf_model)
        return model.min_duration_ms if model is not None and model.min_duration_ms is not None else self.min_duration_ms

    def equal_issue_required(self, mlperf_model: str | None, division: str) -> bool:
        """Whether a result of ``mlperf_model`` in ``division`` must run in equal-issue mode (PF011; the loader
        reads mlperf.conf and user.conf only for such a result)."""
        model = self.models.get(mlperf_model)
        return model is not None and model.equal_issue and division in model.equal_issue_divisions


class SeedsMethods:
    __slots__ = ()

    def as_dict(self) -> dict[str, int]:
        return {
            "qsl_rng_seed": self.qsl_rng_seed,
            "sample_index_rng_seed": self.sample_index_rng_seed,
            "schedule_rng_seed": self.schedule_rng_seed,
        }


class TestRoundMethods:
    __slots__ = ()

    def round_settings(self, loadgen_model: str) -> dict[str, str]:
        return {**self.run_settings.get("*", {}), **self.run_settings.get(loadgen_model, {})}


class RoundAuditSpecMethods:
    __slots__ = ()

    def mlperf_model(self, model_dir: str) -> str:
        """Map a result directory's model name (``resnet50``) to the mlperf name (``resnet``)."""
        return self.info.model_aliases.get(model_dir, model_dir)

    def tests_for(self, model_dir: str) -> list[str]:
        model = self.mlperf_model(model_dir)
        return sorted(name for name, spec in self.tests.items() if model in spec.models)


class AppendixBMethods:
    __slots__ = ()

    def for_model(self, mlperf_model: str):
        """The (key, benchmark) of an MLPerf model's row of tables B.1/B.2, or None."""
        for key, bench in self.benchmarks.items():
            if mlperf_model in bench.models or mlperf_model == key:
                return key, bench
        return None
