#!/usr/bin/env python3
"""A scripted agent for `git tdd run`: no model, no API key, no network.

It plays the agent of the walk-through in docs/agents.md ("Try it first: a
scripted agent, no API key"), so that you can watch the loop and learn the
protocol before you connect a real model. Configure it as the agent's command:

    git config --add tdd.agent.command python3
    git config --add tdd.agent.command /path/to/examples/agents/scripted_agent.py

The protocol, as git tdd run speaks it to any command agent:

- The prompt comes on standard input. The command runs in the workflow's
  worktree, in the sandbox: it may read the repository, and write only the
  worktree (edit mode).
- "You are writing the tests for issue #N" is N1, scaffold: write failing
  tests, and nothing but tests. "You are implementing issue #N" is N3: make
  the failing tests pass without touching them.
- In text mode (the default) the prompt ends with "## How to answer", and the
  answer, on standard output, is the files: a line "### FILE: <path>", then
  the whole file in one fenced block, or FIND/REPLACE blocks that change it.
  git tdd writes them through its write and patch gates, all or nothing.
- In edit mode ([agent] mode = "edit") the prompt says "Make the changes in
  the working tree yourself": the agent edits the files, and what it says on
  standard output is only talk.
- What the agent says on standard error reaches the human's terminal,
  escaped.

What it writes is scripted: the designs of the walk-through ask for a
function of the calc package (calc.mul, calc.sub), and this agent knows those
(SCRIPT below). For any other design it says so and fails: a real agent (a
model) is needed there.
"""

import os
import re
import sys

# What this agent knows: for each function a design may ask for, its
# operator and the examples its tests check (a, b, result).
SCRIPT = {
    "mul": {"what": "the product of a and b", "op": "*", "examples": [(2, 3, 6), (7, 0, 0), (-2, 4, -8)]},
    "sub": {"what": "a minus b", "op": "-", "examples": [(5, 3, 2), (2, 5, -3)]},
}

MODULE = "calc/__init__.py"


def say(message):
    """Talk to the human (standard error: shown escaped, never parsed)."""
    print("scripted agent: " + message, file=sys.stderr)


def fenced(text):
    return "```python\n" + text.rstrip("\n") + "\n```\n"


def tests_for(name, spec):
    """The failing tests of N1: one test per example of the script."""
    out = "import calc\n"
    for i, (a, b, result) in enumerate(spec["examples"], 1):
        out += "\n\ndef test_%s_%d():\n    assert calc.%s(%d, %d) == %d\n" % (name, i, name, a, b, result)
    return out


def function_for(name, spec):
    """The code of N3."""
    return 'def %s(a, b):\n    """Return %s."""\n    return a %s b\n' % (name, spec["what"], spec["op"])


def last_definition(source):
    """The lines of the module's last top-level def, as the file has them:
    what a FIND block copies, so that it matches exactly once."""
    lines = source.rstrip("\n").split("\n")
    start = max(i for i, line in enumerate(lines) if line.startswith("def "))
    return "\n".join(lines[start:]) + "\n"


def asked_for(prompt):
    """The function the design asks for: the first calc.NAME( of the
    design's section (of the whole prompt, if it has none), that is known."""
    design = re.search(r"^## The design: .*?$(.*?)(?=^## |\Z)", prompt, re.M | re.S)
    text = design.group(1) if design else prompt
    names = re.findall(r"\bcalc\.(\w+)\(", text)
    known = [n for n in names if n in SCRIPT]
    return known[0] if known else (names[0] if names else None)


def main():
    prompt = sys.stdin.read()
    edit_mode = "Make the changes in the working tree yourself" in prompt
    if "You are writing the tests for issue" in prompt:
        phase = "scaffold"
    elif "You are implementing issue" in prompt:
        phase = "implement"
    else:
        say("this is not a prompt of git tdd run's I know")
        return 1
    name = asked_for(prompt)
    if name not in SCRIPT:
        say("this agent only knows the walk-through of docs/agents.md (calc.mul, calc.sub); "
            "the design asks for %s: configure a model as [agent]" % (name or "something else"))
        return 1
    spec = SCRIPT[name]
    say("%s of calc.%s, %s mode" % (phase, name, "edit" if edit_mode else "text"))

    if phase == "scaffold":
        path, content = "tests/test_%s.py" % name, tests_for(name, spec)
        if edit_mode:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(content)
            print("I wrote %s." % path)
        else:
            # a new file: whole, in one fence
            print("The tests for calc.%s:\n\n### FILE: %s\n%s" % (name, path, fenced(content)))
        return 0

    with open(MODULE) as f:  # the worktree's, where the agent runs
        source = f.read()
    if re.search(r"^def %s\(" % name, source, re.M):
        say("calc.%s is already there: nothing more I can do (a reviewer's reason needs a real model)" % name)
        return 1
    if edit_mode:
        with open(MODULE, "a") as f:
            f.write("\n\n" + function_for(name, spec))
        print("I added calc.%s to %s." % (name, MODULE))
        return 0
    # an existing file: FIND/REPLACE blocks (a large file may only be
    # changed this way); FIND copies lines exactly as the file has them
    anchor = last_definition(source)
    print("### FILE: %s\n### CHANGE 1: add %s after the last function\nFIND:\n%sREPLACE WITH:\n%s"
          % (MODULE, name, fenced(anchor), fenced(anchor + "\n\n" + function_for(name, spec))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
