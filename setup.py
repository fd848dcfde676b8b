"""Build details pyproject.toml cannot express (everything else is there).

The C extensions, checker._detail_scan (the line walk of LoadGen detail logs), checker._power_scan (the
readings of spl.txt and ptd_logs.txt), checker._accuracy_scan (the long-line blocks of accuracy logs),
checker._walk_scan (the walk of a submitter folder), checker._json_scan (the shape of a JSON file: keys
written twice, nesting) and checker._fields (the one-call __init__ of frozen dataclasses), are optional: where
one cannot be compiled the install goes on without it and the same work is done in Python
(checker.loaders.loadgen_log, checker.metrics.power, checker.metrics.ptd_read, checker.loaders.accuracy_entries,
checker.loaders.tree, checker.loaders.json_keys, checker.fast_init).

rules/, schemas/ and audits/ live at the top of the repository and ship inside the wheel as
checker/_data/<name>/ (checker.loaders.rules.data_dir finds either location). Every audits/TEST*/
folder (a compliance test's audit.config and spec.yaml) ships as the package
checker._data.audits.TEST*, listed when the wheel is built: a new test folder needs no edit here.
"""

import os

from setuptools import Extension, find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = {"rules": ["*.yaml"], "schemas": ["*.json"], "audits": ["*.yaml"]}
GRAMMAR = "checker/_entry_grammar.h"  # the accuracy-log entry grammar both log extensions include
QUOTE = "checker/_quote_scan.h"  # the JSON string scan the detail-log and JSON readers share
SIMD = "checker/_simd.h"  # the vector instructions the three log readers may use, and their test switches
TESTS = sorted(name for name in os.listdir(os.path.join(HERE, "audits"))
               if name.startswith("TEST") and os.path.isdir(os.path.join(HERE, "audits", name)))

setup(
    packages=find_packages(where=HERE, include=["checker", "checker.*"])
    + [f"checker._data.{name}" for name in DATA] + [f"checker._data.audits.{test}" for test in TESTS],
    package_dir={f"checker._data.{name}": name for name in DATA},
    package_data={**{f"checker._data.{name}": globs for name, globs in DATA.items()},
                  **{f"checker._data.audits.{test}": ["*"] for test in TESTS}},
    ext_modules=[Extension("checker._detail_scan", ["checker/_detail_scan.c"], depends=[GRAMMAR, SIMD, QUOTE],
                           optional=True),
                 Extension("checker._power_scan", ["checker/_power_scan.c"], depends=[SIMD], optional=True),
                 Extension("checker._accuracy_scan", ["checker/_accuracy_scan.c"], depends=[GRAMMAR, SIMD],
                           optional=True),
                 Extension("checker._walk_scan", ["checker/_walk_scan.c"], optional=True),
                 Extension("checker._json_scan", ["checker/_json_scan.c"], depends=[QUOTE], optional=True),
                 Extension("checker._fields", ["checker/_fields.c"], optional=True)],
)
