"""An inferred result's folder compared byte by byte with its source scenario's folder, in the load stage.

preprocess_submission.py (and ``mlpc infer``) make an edge system's inferred result (MultiStream or Offline
from a SingleStream run, Offline from a MultiStream one: rules 4.1.1) by copying the measured scenario's
folder, and PF020 reports a copy that is not byte-identical. The comparison reads every file of both
folders, most of which the loader reads anyway (the logs, accuracy.txt, the compliance tests' files in the
v6.0 layout), so the loader makes it, from the sha256 of each file taken while it reads it, and the check
reads the :class:`InferredCopy` it records on the result:

1. a model's performance logs are parsed before the rest of its results, a copy's before its source's
   (:func:`in_inference_order`); each tells whether its folder is a copy, and of which sibling
   (:func:`source_of`), and a copy's log is hashed from the bytes just parsed;
2. from then on the Sandbox keeps the sha256 of every file read below the copy's and the source's folders
   (:meth:`~checker.loaders.fs.Sandbox.digest_below`), the source's logs included;
3. once the submitter is loaded, :func:`compare_copies` compares each pair by those digests and hashes (once)
   the files the loader does not read (a README, the trace logs).

Nothing is hashed for a model without an inferred result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from checker.loaders.fs import Sandbox
from checker.loaders.loadgen_log import DetailLog
from checker.loaders.tree_writer import CopyComparison, compare_folders, scenario_dirs
from checker.naming import canonical_scenario

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.rules import RoundRules


@dataclass(frozen=True)
class InferredCopy:
    """An inferred result's folder compared with its source scenario's folder (what PF020 reads)."""

    source: str  # the source scenario folder's name (a sibling of the result's folder)
    source_rel: str
    comparison: CopyComparison


def in_inference_order(folders: tuple[str, ...], rules: RoundRules) -> list[str]:
    """``folders`` with each before those it could be inferred from (Offline before MultiStream, both before
    SingleStream: ``rules.inferable``): a copy's log is read before its source's folder is, whose files are
    then digested as they are read."""
    depth: dict[str | None, int] = {}

    def rank(scenario: str | None) -> int:
        if scenario not in depth:
            depth[scenario] = 0  # (a cycle in the rules ends here)
            depth[scenario] = max((1 + rank(target) for target, source in rules.inferable if source == scenario),
                                  default=0)
        return depth[scenario]

    return sorted(folders, key=lambda name: rank(canonical_scenario(name, rules)))


def source_of(box: Sandbox, model_rel: str, name: str, listed: tuple[str, ...], log: DetailLog,
              rules: RoundRules) -> str | None:
    """The source folder of the model's folder ``name`` when it holds an inferred result: its performance
    run (``log``) has another scenario, one its own can be inferred from, and a sibling folder of that scenario
    (any case: ``SingleStream/``, ``singlestream/``) is there (the first one); else None."""
    scenario = canonical_scenario(name, rules)
    if scenario is None or log.scenario in (None, scenario) or [scenario, log.scenario] not in rules.inferable:
        return None
    # the folders a copy's comparison lists (links to folders included), as the walk saw them when it could
    folders = listed if box.names(model_rel) is not None else scenario_dirs(box.root, model_rel)
    return next((d for d in folders if d != name and canonical_scenario(d, rules) == log.scenario), None)


def compare_copies(box: Sandbox, pairs: list[tuple[str, str]]) -> dict[str, InferredCopy]:
    """Copy folder -> its comparison with its source folder (both relative), by the digests ``box`` kept of the
    files it read below them; what it did not read is hashed here, once (a source of two copies too)."""
    return {copy_rel: InferredCopy(source_rel.rsplit("/", 1)[-1], source_rel,
                                   compare_folders(box.root, source_rel, copy_rel, box.digests, box.files_below))
            for copy_rel, source_rel in pairs}
