# Runs one module of CPython's own test suite under unittest, as regrtest
# would (no extra resources, in a fresh temporary directory), and prints
# one line: how many passed, and the id of every test that failed, errored
# or was skipped, with the last line of its reason, as JSON compressed with
# zlib and base64 (it must fit the sandbox's 64 KiB output cap). The tests'
# own output goes to /dev/null.
import base64
import json
import os
import sys
import tempfile
import unittest
import zlib

MODULE = "test_os"  # set by scripts/pysuite

keep = os.dup(1)
null = os.open(os.devnull, os.O_WRONLY)
os.dup2(null, 1)
os.dup2(null, 2)
os.chdir(tempfile.mkdtemp(prefix="pysuite-"))
from test import support  # noqa: E402

support.use_resources = []  # regrtest's default: no -u resources


def reason(text):
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:160]


class Result(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.passed = 0
        self.outcomes = {}

    def addSuccess(self, test):
        self.passed += 1

    def addFailure(self, test, err):
        self.outcomes[test.id()] = "failed: " + reason(self._exc_info_to_string(err, test))

    def addError(self, test, err):
        self.outcomes[test.id()] = "error: " + reason(self._exc_info_to_string(err, test))

    def addSkip(self, test, why):
        self.outcomes[test.id()] = "skipped: " + reason(why)

    def addExpectedFailure(self, test, err):
        self.passed += 1

    def addUnexpectedSuccess(self, test):
        self.outcomes[test.id()] = "failed: unexpected success"


result = Result()
try:
    suite = unittest.defaultTestLoader.loadTestsFromName("test." + MODULE)
    suite.run(result)
except BaseException as e:
    result.outcomes["<load>"] = "error: " + reason(repr(e))
sys.stdout.flush()
sys.stderr.flush()
out = json.dumps({"passed": result.passed, "outcomes": result.outcomes}, separators=(",", ":"))
os.write(keep, b"@@PYSUITE@@" + base64.b64encode(zlib.compress(out.encode(), 9)) + b"\n")
