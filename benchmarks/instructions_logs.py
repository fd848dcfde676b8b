#!/usr/bin/env python3
"""Count the CPU instructions a serial check spends reading LoadGen logs and compliance folders, with
callgrind: the whole check runs, but instructions are collected only while one of these stage functions
is on the stack (outermost call only):

    checker.loaders.tree.parse_log, tree._parse_detail (detail + summary logs of a result)
    checker.loaders.compliance_folder.load_compliance (a result's compliance folder)
    checker.loaders.loadgen_log.DetailLog.get (every value a check or the loader reads of a detail log)

    python benchmarks/instructions_logs.py TREE --round v4.1                 # this checkout
    python benchmarks/instructions_logs.py TREE --round v4.1 --code ../main  # another checkout

It prints the stage's instructions and those of the whole check (as benchmarks/instructions.py counts
them, less the imports), in millions. The collection is switched with callgrind's client request from a
tiny extension module compiled on the fly (needs a C compiler and valgrind's headers); the stage count
includes the wrappers' own few instructions per call, the same for any checkout. ``--only`` counts some
of the stage functions, ``--out`` keeps the callgrind file (for callgrind_annotate). Like instructions.py,
use a small tree: callgrind runs about 50x slower than the plain interpreter.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from instructions import callgrind_count  # (this folder: the scripts run from it)

HELPER = r"""
#include <Python.h>
#include <valgrind/callgrind.h>
static PyObject *toggle(PyObject *self, PyObject *unused) { CALLGRIND_TOGGLE_COLLECT; Py_RETURN_NONE; }
static PyMethodDef methods[] = {{"toggle", toggle, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "mlpc_toggle", NULL, -1, methods};
PyMODINIT_FUNC PyInit_mlpc_toggle(void) { return PyModule_Create(&module); }
"""

PROGRAM = r"""
import functools, sys
sys.path.insert(0, sys.argv[1])
import checker
assert checker.__file__.startswith(sys.argv[1]), checker.__file__
import numpy, scipy.special
from checker.pipeline import check_tree
from checker.loaders.rules import load_rules
from checker.loaders import tree, loadgen_log
sys.path.insert(0, sys.argv[5])
from mlpc_toggle import toggle
depth = [0]

def staged(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if depth[0] == 0:
            toggle()
        depth[0] += 1
        try:
            return function(*args, **kwargs)
        finally:
            depth[0] -= 1
            if depth[0] == 0:
                toggle()
    return wrapper

if sys.argv[4] == "stage":
    only = sys.argv[6].split(",")
    for name in ("parse_log", "_parse_detail", "load_compliance"):
        if name in only:
            setattr(tree, name, staged(getattr(tree, name)))
    if "get" in only:
        loadgen_log.DetailLog.get = staged(loadgen_log.DetailLog.get)
rules = load_rules(sys.argv[3])
if sys.argv[4] != "none":
    check_tree(sys.argv[2], rules, jobs=1)
"""


STAGES = "parse_log,_parse_detail,load_compliance,get"


def collected(code: str, tree: str, round_name: str, mode: str, helper: str, only: str = STAGES,
              out: str = "/dev/null") -> int:
    options = ("--collect-atstart=no",) if mode == "stage" else ()
    return callgrind_count(PROGRAM, [code, tree, round_name, mode, helper, only], options, out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", help="submission tree to check (keep it small)")
    parser.add_argument("--round", required=True, help="round rules (v4.1, v5.0, v5.1, v6.0)")
    parser.add_argument("--code", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        help="checkout whose checker package is measured")
    parser.add_argument("--stage-only", action="store_true", help="skip the whole-check count")
    parser.add_argument("--out", default="/dev/null", help="keep the stage's callgrind file (callgrind_annotate)")
    parser.add_argument("--only", default=STAGES, help=f"the stage functions counted (default {STAGES})")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        print("needs valgrind and a C compiler", file=sys.stderr)
        return 2
    code = os.path.abspath(args.code)
    with tempfile.TemporaryDirectory() as work:
        source, helper = os.path.join(work, "toggle.c"), work
        with open(source, "w") as handle:
            handle.write(HELPER)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", f"-I{sysconfig.get_paths()['include']}", "-o",
                        os.path.join(work, f"mlpc_toggle{suffix}"), source], check=True)
        stage = collected(code, args.tree, args.round, "stage", helper, args.only, os.path.abspath(args.out))
        line = f"{code}: logs and compliance stage = {stage / 1e6:,.1f} M instructions"
        if not args.stage_only:
            whole = collected(code, args.tree, args.round, "check", helper) - collected(
                code, args.tree, args.round, "none", helper)
            line += f"; whole check = {whole / 1e6:,.1f} M"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
