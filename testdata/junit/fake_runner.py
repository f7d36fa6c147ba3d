#!/usr/bin/env python3
"""A test runner for git tdd's runner = "junit" scripts, in place of vitest,
jest or cargo-nextest (not installed here). Tests are lines of *.test.txt files:

    describe > title: OP A B == WANT

and the code under test is src/calc.txt, lines "OP = +" (or -, *). It writes a
JUnit XML report shaped like the tool named by --style:

    vitest   classname = the test file, name = "describe > title"
    nextest  classname = the binary ("calc"), name = "tests::title", no file
    jest     classname = name = "describe title", file = the test file

to the path of --outputFile=PATH (or $REPORT), prints a line per test and exits
1 when a test fails. A test file with a line that does not parse is a "build
error": exit 101 and no report, as cargo does.
"""
import glob
import os
import sys
from xml.sax.saxutils import quoteattr

style, out = "vitest", os.environ.get("REPORT", "")
for a in sys.argv[1:]:
    if a.startswith("--style="):
        style = a.split("=", 1)[1]
    elif a.startswith("--outputFile="):
        out = a.split("=", 1)[1]

ops = {}
if os.path.exists("src/calc.txt"):
    for line in open("src/calc.txt"):
        if "=" in line:
            k, v = line.split("=", 1)
            ops[k.strip()] = v.strip()

cases = []
for f in sorted(glob.glob("**/*.test.txt", recursive=True)):
    for n, line in enumerate(open(f), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            title, expr = line.split(":", 1)
            lhs, want = expr.split("==")
            op, a, b = lhs.split()
            a, b, want = int(a), int(b), int(want)
        except ValueError:
            print("error: %s:%d: cannot compile %r" % (f, n, line), file=sys.stderr)
            sys.exit(101)
        title = title.strip()
        if op not in ops:
            cases.append((f, title, "TypeError: %s is not a function" % op))
            continue
        got = {"+": a + b, "-": a - b, "*": a * b}[ops[op]]
        cases.append((f, title, None if got == want else "expected %d to be %d" % (got, want)))

rows = []
for f, title, failure in cases:
    describe, _, it = title.rpartition(" > ")
    if style == "nextest":
        attrs = 'classname="calc" name=%s' % quoteattr("tests::" + it.replace(" ", "_"))
    elif style == "jest":
        t = (describe + " " + it).strip()
        attrs = "classname=%s name=%s file=%s" % (quoteattr(t), quoteattr(t), quoteattr(f))
    else:
        attrs = "classname=%s name=%s" % (quoteattr(f), quoteattr(title))
    body = "<failure message=%s/>" % quoteattr(failure) if failure else ""
    rows.append("<testcase %s>%s</testcase>" % (attrs, body))
    print("%s %s %s" % ("FAIL" if failure else "ok  ", f, title))

if out:
    with open(out, "w") as fh:
        fh.write('<?xml version="1.0"?>\n<testsuites><testsuite name="fake">%s</testsuite></testsuites>\n' % "".join(rows))
sys.exit(1 if any(c[2] for c in cases) else 0)
