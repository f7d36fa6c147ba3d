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
import atexit
import os
import sys
import threading

import pytest

_escape = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


# The exit handlers registered before any test ran (logging's, a plugin's):
# the interpreter's teardown runs them only to close what the run no longer
# needs. -1: this Python cannot count them.
_handlers = getattr(atexit, "_ncallbacks", lambda: -1)()


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config):
    # registered before pytest's own clean-ups, so that it runs after them
    # all (they run last first): pytest has then written all it writes
    early_config.add_cleanup(lambda: _end(early_config))
    yield


def _end(config):
    """Ends the process as pytest would end it, once the session reported,
    without the interpreter's teardown (freeing every module and object, one
    by one: 20 ms and more), unless the teardown may still do something: an
    exit handler registered during the session, coverage.py (which saves at
    exit), a thread still running, an error on its way out."""
    reporter = config.pluginmanager.get_plugin("git-tdd-reporter")
    if reporter is None or reporter.session is None or reporter.out is not None:
        return  # no session of ours, or one that did not end
    if sys.exc_info()[0] is not None:
        return  # an error after the session, on its way out: pytest reports it
    if _handlers < 0 or atexit._ncallbacks() != _handlers:
        return
    if _measuring():
        return  # coverage.py saves its data at exit, even started before us (a .pth)
    if any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not threading.main_thread()):
        return
    for f in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            f.flush()
        except Exception:
            return  # as pytest would have it: its own exit reports it
    os._exit(int(reporter.session.exitstatus))


def _measuring():
    """Whether coverage.py measures this process: started, and not stopped
    (pytest-cov stops its own once the session ended)."""
    coverage = sys.modules.get("coverage")
    current = getattr(getattr(coverage, "Coverage", None), "current", None)
    return coverage is not None and (current is None or current() is not None)


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
        self.session = None
        self.write("v", "1")

    def pytest_sessionstart(self, session):
        self.session = session

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
