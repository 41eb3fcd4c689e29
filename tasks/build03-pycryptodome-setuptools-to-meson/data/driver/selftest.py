# Runs one subpackage of pycryptodome's own test suite (Crypto.SelfTest.<name>)
# against an installed tree and prints, per test module, how many tests ran
# and how each ended, with a digest of the sorted "outcome test-id" lines;
# then every test that did not pass, by id. Run as
#   python3 -I selftest.py INSTALL VECTORS NAME
# from an empty folder, so Crypto resolves inside INSTALL only.
import hashlib
import importlib
import sys
import unittest

install, vectors, name = sys.argv[1:4]
sys.path[:0] = [install, vectors]


class Result(unittest.TestResult):
    """Records one outcome per test run."""

    def __init__(self):
        super().__init__()
        self.outcomes = []

    def _add(self, test, outcome):
        self.outcomes.append((type(test).__module__, outcome, test.id()))

    def addSuccess(self, test):
        self._add(test, "ok")

    def addFailure(self, test, err):
        self._add(test, "FAIL")

    def addError(self, test, err):
        self._add(test, "ERROR")

    def addSkip(self, test, reason):
        self._add(test, "SKIP")

    def addExpectedFailure(self, test, err):
        self._add(test, "xfail")

    def addUnexpectedSuccess(self, test):
        self._add(test, "XPASS")


import Crypto  # noqa: E402

if not Crypto.__file__.startswith(install):
    print("Crypto imported from outside the install: " + Crypto.__file__)
    sys.exit(3)
module = importlib.import_module("Crypto.SelfTest." + name)
suite = unittest.TestSuite(module.get_tests(config={"slow_tests": True, "wycheproof_warnings": False}))
result = Result()
suite.run(result)

by_module = {}
for mod, outcome, tid in result.outcomes:
    by_module.setdefault(mod, []).append((outcome, tid))
for mod in sorted(by_module):
    rows = by_module[mod]
    counts = {}
    for outcome, _ in rows:
        counts[outcome] = counts.get(outcome, 0) + 1
    digest = hashlib.sha256("\n".join(sorted(o + " " + t for o, t in rows)).encode()).hexdigest()[:16]
    print(mod, "ran=%d" % len(rows), " ".join("%s=%d" % kv for kv in sorted(counts.items())), "ids=" + digest)
for mod in sorted(by_module):
    for outcome, tid in sorted(set(by_module[mod])):
        if outcome != "ok":
            print(outcome, tid)
