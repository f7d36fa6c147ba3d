# git-tdd's pytest reporter: a line for each report, as pytest makes it, in
# the file GIT_TDD_PYTEST_REPORT names. git tdd loads it through
# PYTEST_PLUGINS (-p would have pytest scan every installed distribution's
# entry points again: milliseconds) in place of --junitxml, whose report
# costs pytest 3 to 5 ms more. Fields are tab-separated, with backslash,
# tab, newline and carriage return escaped; messages are the ones pytest's
# JUnit report gives. The last line says the session ended.
#
# Only the first session reports, to the pytest that git tdd started: the
# variable is taken out of the environment, so that a pytest a test starts
# (pytester, subprocess) does not write the file, and a session run inside
# a test (pytester's inline runs) gets no reporter.
import os

_escape = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: the controller reports
    path = os.environ.pop("GIT_TDD_PYTEST_REPORT", None)
    if path:
        config.pluginmanager.register(_Reporter(path), "git-tdd-reporter")


def _message(report):
    if report.outcome == "passed":
        return ""
    if report.outcome == "skipped":
        if hasattr(report, "wasxfail"):
            reason = report.wasxfail
            return reason[8:] if reason.startswith("reason: ") else reason
        if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
            filename, lineno, reason = report.longrepr
            if reason.startswith("Skipped: "):
                reason = reason[9:]
            return "%s:%s: %s" % (filename, lineno, reason)
    return str(report.longrepr)


class _Reporter:
    def __init__(self, path):
        self.out = open(path, "w", encoding="utf-8", errors="backslashreplace")
        self.write("v", "1")

    def write(self, *fields):
        if self.out is None:
            return  # after the session
        self.out.write("\t".join(str(f).translate(_escape) for f in fields) + "\n")

    def pytest_runtest_logreport(self, report):
        if report.outcome not in ("passed", "failed", "skipped"):
            return  # a rerun (pytest-rerunfailures): the last attempt reports
        location = report.location[0] if report.location else ""
        self.write("t", report.when, report.outcome, report.nodeid, location, _message(report))

    def pytest_collectreport(self, report):
        if not report.passed:
            self.write("c", "collect", report.outcome, report.nodeid, report.nodeid, str(report.longrepr))

    def pytest_sessionfinish(self, session, exitstatus):
        self.write("e", int(exitstatus))
        self.out.close()
        self.out = None
