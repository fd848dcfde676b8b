"""Read one result's compliance folder (TEST01/04/05/06/07/08/09) once, into a :class:`ComplianceRecord`.

The compliance verification (:mod:`checker.audit.compliance`) judges a result's tests from this record
alone and opens no file. ``mlpc check`` builds the record in its load stage (``checker.loaders.tree``);
the stand-alone audit commands build it here too (:func:`read_compliance`), so there is one reading and
one verification for both.

What the record keeps of each ``TEST0x`` folder: which of the files the round's rules name are there
(and the names in the folders whose file set is exact), the text of the ``verify_*.txt`` files (their
first MiB), the test run's parsed summary and detail logs (or why they could not be read), and of each
accuracy log the facts one pass over it gave (:class:`LogPass`: problems, truncation, entry count, and
what the test compares: TEST01 output keys, TEST06 verdict, TEST07 sample count, TEST08 verdict, TEST09
output lengths). Of the result itself it keeps its performance summary (the reference of
TEST01/04/05, the tree loader's parse when it has one), the TEST01 reference outputs of its accuracy log
(only the samples the TEST01 log holds, plus the log's own consistency counts) and its accuracy run's
sample count (TEST08). Nothing here raises on bad input: a file that cannot be read is kept as the
reason, which the verification reports with its own code.
"""

from __future__ import annotations

import os
from binascii import unhexlify
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING, BinaryIO, Callable, ContextManager, Iterator

from checker.audit import verify_tests as vt
from checker.fast_init import fast_init, replace
from checker.loaders.accuracy_entries import AccuracyEntries
from checker.loaders.fs import Sandbox
from checker.loaders.loadgen_log import (
    MAX_LOG_BYTES, DetailLog, LogReadError, parse_detail_bytes, parse_detail_log, parse_summary_log, parse_summary_text)

if TYPE_CHECKING:  # (the round's files are held as records: checker.models.record)
    from checker.models.audit_spec import RoundAuditSpec

PERF_DIR = "performance/run_1"
ACC_LOG = "mlperf_log_accuracy.json"
DETAIL = f"{PERF_DIR}/mlperf_log_detail.txt"
SUMMARY = f"{PERF_DIR}/mlperf_log_summary.txt"
TEST_LOG = f"accuracy/{ACC_LOG}"
FALLBACK_FILES = ("accuracy/baseline_accuracy.txt", "accuracy/compliance_accuracy.txt")  # TEST01
MAX_TEXT_BYTES = 1024 * 1024  # verify_*.txt and accuracy.txt files: the first MiB is read


_SCENARIOS = {s.lower(): s for s in ("SingleStream", "MultiStream", "Server", "Offline", "Interactive")}


def scenario_name(scenario_dir: str) -> str:
    """The scenario a folder name stands for (lower-case folders of v5.1 and later), else the name itself."""
    return _SCENARIOS.get(scenario_dir.lower(), scenario_dir)


# --------------------------------------------------------------------------- accuracy logs


class AccuracyLogReader(AccuracyEntries):
    """The entries of an ``mlperf_log_accuracy.json`` (read by :mod:`checker.loaders.accuracy_entries`),
    as :class:`~checker.audit.verify_tests.OutputEntry` or as TEST01 output keys. Never raises:
    problems are collected on the reader."""

    def __iter__(self) -> Iterator[vt.OutputEntry]:
        for rows in self.batches():
            yield from _entries(rows)

    def keys(self, width: int) -> Iterator[tuple[int, bytes]]:
        """``(qsl_idx, output key)`` of every entry (:func:`checker.audit.verify_tests.output_key`)."""
        for rows in self.batches():
            yield from vt.output_keys(rows, width)


@fast_init
@dataclass(frozen=True)
class LogPass:
    """What one pass over an accuracy log kept: its problems (as :class:`AccuracyLogReader` collects
    them) and ``value``, what the verification compares (which depends on the test)."""

    path: str  # absolute
    error: str | None = None
    truncated: bool = False
    malformed: tuple[tuple[int, str], ...] = ()
    entries: int = 0
    value: object = None


def _entries(rows: list) -> list[vt.OutputEntry]:
    """The rows of an accuracy log as the entries the TEST06 verification reads."""
    return [vt.OutputEntry(qsl, str(data, "ascii"), token_data.decode("ascii") if token_data else None, count,
                           unhexlify(data) if raw is None else raw) for qsl, data, token_data, count, raw in rows]


_FIRST = itemgetter(0)


def _pass(reader: AccuracyLogReader, value: object) -> LogPass:
    return LogPass(reader.path, reader.error, reader.truncated, tuple(reader.malformed), reader.entries, value)


def _path_join(path: str, rel: str) -> str:
    """``os.path.join(path, *rel.split("/"))``: with "/" as the separator, a path that does not end with one
    and a relative path of plain names, the two joined by one "/"."""
    if _SLASH and path and path[-1] != "/" and rel and rel[0] != "/" and rel[-1] != "/" and "//" not in rel:
        return f"{path}/{rel}"
    return os.path.join(path, *rel.split("/"))


_SLASH = os.sep == "/" and os.altsep is None


# --------------------------------------------------------------------------- the record


@fast_init
@dataclass(frozen=True)
class TestFolder:
    """One ``TEST0x`` folder of a compliance folder, as read once."""

    name: str
    path: str  # absolute
    files: frozenset[str] = frozenset()  # the paths (relative, "/"-separated) of the files asked about that are files
    listings: dict = field(default_factory=dict)  # folder (relative) -> every name in it, or None (unlistable)
    texts: dict = field(default_factory=dict)  # file (relative) -> its first MiB as text; absent or None: unreadable
    summary: dict | str | None = None  # the test run's summary log parsed, or why it cannot be read; None: no file
    detail: DetailLog | str | None = None  # the test run's detail log, the same way
    logs: dict = field(default_factory=dict)  # what -> LogPass ("accuracy": the test's log, "reference": the result's)

    def path_of(self, rel: str) -> str:
        return _path_join(self.path, rel)

    def has(self, rel: str) -> bool:
        return rel in self.files

    def text(self, rel: str) -> str | None:
        return self.texts.get(rel)


@fast_init
@dataclass(frozen=True)
class ComplianceRecord:
    """A result's compliance folder and what its verification needs of the result itself."""

    path: str  # the compliance folder (absolute): compliance/<sys>/<model>/<scenario>, or the result folder (v6.0+)
    result_path: str  # the result folder (absolute)
    exists: bool
    folders: dict = field(default_factory=dict)  # TEST* folder name -> TestFolder, every one present
    reference_summary: dict | str | None = None  # the result's performance summary, or why unreadable; None: no file
    accuracy_count: int | None = None  # samples of the result's accuracy run (its detail log), TEST08
    result_log: bool = False  # the result's accuracy log is a file (TEST01, TEST08)
    failure: Exception | None = None  # the reading stopped on input nothing here expected (reported as CP020)

    @property
    def result_log_path(self) -> str:
        return _path_join(self.result_path, TEST_LOG)

    @property
    def tests(self) -> tuple[str, ...]:
        return tuple(sorted(self.folders))


# --------------------------------------------------------------------------- reading


def _read_small_text(box: Sandbox, rel: str) -> str | None:
    data, _ = box.read_bytes(rel, MAX_TEXT_BYTES)  # (a file the walk saw: one read, no file object)
    if data is not None:
        return data.decode("utf-8", errors="replace")
    try:  # larger than the limit (its first MiB), or not a file the sandbox reads: read here
        with box.open(rel) as handle:
            raw = handle.read(MAX_TEXT_BYTES + 1)
    except OSError:
        return None
    return raw[:MAX_TEXT_BYTES].decode("utf-8", errors="replace")


def _summary(box: Sandbox, rel: str) -> dict | str:
    text, _ = box.read_text(rel, limit=MAX_LOG_BYTES)
    if text is not None:
        return parse_summary_text(text)
    try:  # what the log reader says of a file the sandbox does not read
        return parse_summary_log(box.abs(rel))
    except LogReadError as exc:
        return str(exc)


def _detail(box: Sandbox, rel: str) -> DetailLog | str:
    data, _ = box.read_text_bytes(rel, limit=MAX_LOG_BYTES)
    if data is not None:
        return parse_detail_bytes(data, box.abs(rel))
    try:  # what the log reader says of a file the sandbox does not read
        return parse_detail_log(box.abs(rel))
    except LogReadError as exc:
        return str(exc)


def _names(box: Sandbox, rel: str) -> tuple[str, ...] | None:
    """Every name in the folder ``rel`` (as os.listdir gives them); None when it cannot be listed."""
    known = box.names(rel)
    if known is not None:
        return known
    try:
        return tuple(sorted(os.listdir(box.abs(rel))))
    except OSError:
        return None


_ASKED: dict[int, tuple[object, frozenset[str], tuple[str, ...]]] = {}  # id(rule) -> (rule, what _asked gives)
_UNDEFINED = (frozenset((DETAIL,)), ())


def _asked(rule) -> tuple[frozenset[str], tuple[str, ...]]:
    """The files of a ``TEST0x`` folder asked about (whether each is a file) under ``rule`` (None: a test the
    round does not define), and the text files among them that are read; made once per rule."""
    if rule is None:
        return _UNDEFINED
    known = _ASKED.get(id(rule))
    if known is None or known[0] is not rule:
        read = tuple(dict.fromkeys((rule.verify_file, "verify_accuracy.txt", "verify_performance.txt", *FALLBACK_FILES)))
        wanted = frozenset((DETAIL, *rule.files.required, SUMMARY, TEST_LOG, *read))
        if len(_ASKED) >= 64:
            _ASKED.clear()
        known = _ASKED[id(rule)] = (rule, wanted, read)
    return known[1], known[2]


_GROUPED: dict[frozenset, tuple] = {}  # wanted -> ((folder, ((name, path), ...)), ...), made once per set


def _grouped(wanted: frozenset[str]) -> tuple:
    """The paths of ``wanted`` by the folder (relative, "" for the test's own) that holds them."""
    known = _GROUPED.get(wanted)
    if known is None:
        folders: dict[str, list] = {}
        for path in sorted(wanted):
            folder, _, name = path.rpartition("/")
            folders.setdefault(folder, []).append((name, path))
        if len(_GROUPED) >= 64:
            _GROUPED.clear()
        known = _GROUPED[wanted] = tuple((folder, tuple(names)) for folder, names in folders.items())
    return known


def _files(box: Sandbox, rel: str, wanted: frozenset[str]) -> frozenset[str]:
    """The paths in ``wanted`` (relative to the folder ``rel``) that are files: those of each folder holding some
    from what the walk saw in it (one look a folder), none where there is no such folder, else asked one by one
    (a folder the walk did not list: one holding a link or a special file, or one it could not read)."""
    found: list[str] = []
    for folder, names in _grouped(wanted):
        where = _join(rel, folder) if folder else rel
        files = box.files_in(where)
        if files is not None:
            found += [path for name, path in names if name in files]
        elif box.is_dir(where):  # (else no folder there: no file below it)
            is_file, prefix = box.is_file, _join(rel, "")
            found += [path for _, path in names if is_file(prefix + path)]
    return frozenset(found)


@dataclass
class _Reading:
    """The reading of one compliance folder in progress."""

    box: Sandbox
    spec: RoundAuditSpec
    model: str  # the mlperf model name
    scenario: str
    result_rel: str
    # the result's accuracy log: how the load stage, which holds it open, gives it from its start (None: it is
    # not a file), or False (the stand-alone commands): opened here
    result_source: Callable[[], ContextManager[BinaryIO]] | None | bool = False
    test01: set | None = None  # the qsl_idx TEST01's own log holds, when TEST01 compares with the result's log
    test08: tuple | None = None  # (TEST08's own log, its rule), when TEST08 compares with the result's log

    def folder(self, name: str, rel: str) -> TestFolder:
        rule = self.spec.tests.get(name)
        box = self.box
        path = box.abs(rel)
        wanted, read = _asked(rule)
        prefix = _join(rel, "")
        files = _files(box, rel, wanted)
        if rule is None:  # a folder the round does not define: only its run's detail log is read (output lengths)
            return TestFolder(name, path, files, detail=_detail(box, prefix + DETAIL) if DETAIL in files else None)
        listings: dict[str, tuple[str, ...] | None] = {}
        for rel_dir in rule.files.exact_dirs:
            if box.is_dir(prefix + rel_dir):
                listings[rel_dir] = _names(box, prefix + rel_dir)
        texts = {text: _read_small_text(box, prefix + text) for text in read if text in files}
        summary = _summary(box, prefix + SUMMARY) if rule.performance is not None and SUMMARY in files else None
        detail = _detail(box, prefix + DETAIL) if DETAIL in files else None
        logs = self.logs(name, path, rule, rel) if TEST_LOG in files else {}
        return TestFolder(name, path, files, listings, texts, summary, detail, logs)

    @property
    def has_result_log(self) -> bool:
        if self.result_source is False:
            return self.box.is_file(_join(self.result_rel, TEST_LOG))
        return self.result_source is not None

    def logs(self, name: str, path: str, rule, rel: str) -> dict[str, LogPass]:
        """One pass over each accuracy log the test compares (the folder at ``path``, ``rel`` in the box, holds
        it), keeping what the comparison needs (the result's log is read later, once for every test that
        compares with it: :meth:`references`)."""
        reader = AccuracyLogReader(_path_join(path, TEST_LOG), opener=partial(self.box.open, _join(rel, TEST_LOG)))
        if name == "TEST01":
            keys: list = []
            for rows in reader.batches():  # (a block's keys at once: no generator step per entry)
                keys += vt.output_keys(rows, 1)
            if self.has_result_log:
                self.test01 = set(map(_FIRST, keys))
            return {"accuracy": _pass(reader, keys)}
        if name == "TEST06":
            eos = rule.llm_output.eos_token_id.get(self.model) if rule.llm_output is not None else None
            if eos is None:
                return {}
            rows: list = []
            for block in reader.batches():
                rows += block
            verdict = None  # judged only from a whole log (a truncated one gives its entry count only)
            if not (reader.truncated or reader.error):
                verdict = vt.verify_test06_rows(rows, self.scenario, eos, rule.llm_output)
            return {"accuracy": _pass(reader, verdict)}
        if name == "TEST07":
            if rule.score.get(self.model) is None:
                return {}
            samples: set = set()
            for rows in reader.batches():
                samples.update(map(_FIRST, rows))
            return {"accuracy": _pass(reader, len(samples))}
        if name == "TEST08":
            if self.has_result_log and rule.ne_match is not None:
                self.test08 = (reader, rule.ne_match)
            return {}
        if name == "TEST09":
            if rule.output_length.get(self.model) is None:
                return {}
            from checker.audit import verify_tests_v6 as v6  # (numpy: only for the rounds that have these tests)

            sizes = [len(row[4]) if row[4] is not None else len(row[1]) // 2 for rows in reader.batches() for row in rows]
            return {"accuracy": _pass(reader, v6.length_stats(sizes, rule.token_bytes))}
        return {}

    def references(self, folders: dict[str, TestFolder]) -> dict[str, TestFolder]:
        """``folders`` with what TEST01 and TEST08 keep of the result's accuracy log, read in one pass for
        both (and, in the load stage, for the log's own digest) once their own logs were read."""
        if self.test01 is None and self.test08 is None:
            return folders
        rel = _join(self.result_rel, TEST_LOG)
        opener = partial(self.box.open, rel) if self.result_source is False else self.result_source
        reader = AccuracyLogReader(self.box.abs(rel), opener=opener)
        keys = vt.ReferenceKeysBuilder() if self.test01 is not None else None

        def blocks() -> Iterator[list]:
            for rows in reader.batches():
                if keys is not None:
                    keys.add(vt.output_keys(rows, 1))
                yield rows

        rows = blocks()
        verdict = None
        if self.test08 is not None:
            from checker.audit import verify_tests_v6 as v6  # (numpy: only for the rounds that have these tests)

            perf, ne_match = self.test08
            verdict = v6.verify_test08((entry for block in rows for entry in _entries(block)), perf, ne_match)
        for _ in rows:  # what TEST08 did not read, or all of it for TEST01 alone
            pass
        folders = dict(folders)
        if keys is not None:
            test01 = folders["TEST01"]
            folders["TEST01"] = replace(test01, logs={**test01.logs, "reference": _pass(reader, keys.result(self.test01))})
        if self.test08 is not None:
            folders["TEST08"] = replace(folders["TEST08"], logs={"reference": _pass(reader, None),
                                                                 "accuracy": _pass(self.test08[0], verdict)})
        return folders


def load_compliance(box: Sandbox, compliance_rel: str, result_rel: str, spec: RoundAuditSpec, model_dir: str,
                    scenario_dir: str, *, reference_summary: dict | None = None,
                    accuracy_detail: DetailLog | None | bool = False,
                    result_log: Callable[[], ContextManager[BinaryIO]] | None | bool = False) -> ComplianceRecord:
    """The record of the compliance folder ``compliance_rel`` of the result ``result_rel`` (both relative to
    ``box``). ``reference_summary``: the result's performance summary when the caller parsed it already;
    ``accuracy_detail``: the result's accuracy detail log when the caller parsed it (None: it has none or
    it is unreadable; False: not asked, read here when TEST08 needs it); ``result_log``: the result's
    accuracy log from its start when the caller holds it open (None: it is not a file; False: opened here).
    Never raises on bad input."""
    try:
        return _load(box, compliance_rel, result_rel, spec, model_dir, scenario_dir, reference_summary, accuracy_detail,
                     result_log)
    except Exception as exc:  # pragma: no cover - last-resort isolation: the verification reports it
        return ComplianceRecord(box.abs(compliance_rel), box.abs(result_rel), box.is_dir(compliance_rel), failure=exc)


def _load(box: Sandbox, compliance_rel: str, result_rel: str, spec: RoundAuditSpec, model_dir: str,
          scenario_dir: str, reference_summary: dict | None, accuracy_detail: DetailLog | None | bool,
          result_log: Callable[[], ContextManager[BinaryIO]] | None | bool = False) -> ComplianceRecord:
    reading = _Reading(box, spec, spec.mlperf_model(model_dir), scenario_name(scenario_dir), result_rel, result_log)
    path = box.abs(compliance_rel)
    if not box.is_dir(compliance_rel):
        return ComplianceRecord(path, box.abs(result_rel), False)
    names = _names(box, compliance_rel) or ()
    folders = reading.references({name: reading.folder(name, _join(compliance_rel, name)) for name in names
                                  if name.startswith("TEST") and box.is_dir(_join(compliance_rel, name))})
    ref = reference_summary
    if ref is None and any(name in spec.tests and spec.tests[name].performance is not None for name in folders):
        ref_rel = _join(result_rel, SUMMARY)
        ref = _summary(box, ref_rel) if box.is_file(ref_rel) else None
    count = None
    if "TEST08" in folders:
        if accuracy_detail is False:
            detail_rel = _join(result_rel, "accuracy/mlperf_log_detail.txt")
            accuracy_detail = _detail(box, detail_rel) if box.is_file(detail_rel) else None
        count = _sample_count(accuracy_detail) if isinstance(accuracy_detail, DetailLog) else None
    return ComplianceRecord(path, box.abs(result_rel), True, folders, ref, count, reading.has_result_log)


def _sample_count(detail: DetailLog) -> int | None:
    for key in ("effective_accuracy_sample_count", "qsl_reported_total_count"):
        value = detail.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def read_compliance(compliance_dir: str, result_dir: str, spec: RoundAuditSpec, model_dir: str,
                    scenario_dir: str, *, reference_summary: dict | None = None) -> ComplianceRecord:
    """The record of a compliance folder given by paths (the stand-alone audit commands): read inside the
    folder that holds both the compliance folder and the result folder."""
    compliance_dir, result_dir = os.path.abspath(compliance_dir), os.path.abspath(result_dir)
    root = os.path.commonpath([compliance_dir, result_dir])
    box = Sandbox(root)
    return load_compliance(box, _rel(box, compliance_dir), _rel(box, result_dir), spec, model_dir, scenario_dir,
                           reference_summary=reference_summary)


def _rel(box: Sandbox, path: str) -> str:
    rel = box.rel(path)
    return "" if rel == "." else rel


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name
