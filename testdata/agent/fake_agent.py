# A scripted agent for the tests of git tdd run: it answers the Nth call with
# the Nth entry of answers.json (the last one again when they run out), and
# keeps every prompt it gets under calls/. An entry is the answer's text, or an
# object: {"write": {path: content}} edits the worktree itself (edit mode),
# {"say": text} is what it answers, {"kill": true} kills the git tdd that asked,
# {"pause": seconds} answers half of it, waits, then answers the rest.
import json
import os
import signal
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
prompt = sys.stdin.read()
calls = os.path.join(here, "calls")
os.makedirs(calls, exist_ok=True)
n = len(os.listdir(calls))
with open(os.path.join(calls, "%03d.txt" % (n + 1)), "w") as f:
    f.write(prompt)
answers = json.load(open(os.path.join(here, "answers.json")))
a = answers[min(n, len(answers) - 1)]
if isinstance(a, str):
    sys.stdout.write(a)
    sys.exit(0)
if a.get("kill"):
    os.kill(os.getppid(), signal.SIGKILL)
    sys.exit(1)
for path, content in a.get("write", {}).items():
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content)
say = a.get("say", "done")
if a.get("pause"):
    sys.stdout.write(say[: len(say) // 2])
    sys.stdout.flush()
    time.sleep(a["pause"])
    say = say[len(say) // 2 :]
sys.stdout.write(say)
