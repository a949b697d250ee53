"""Every `$ progress ...` command README.md and docs/*.md show runs from the
repository's root as shown, its output as the doc prints it (issue 27).

tests/doc_commands.py reads the commands out of the docs and says what the
docs' conventions mean (`$ cat FILE`, `$ echo $?`, `...`, the `long` and
`file=NAME` fence words). Blocks marked `long` run in
benchmarks/docs_long_commands.py instead (docs/results/docs_commands.md).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doc_commands import DOCS, REPO, Command, File, all_steps, mirror, mismatch, place, run, steps_of

STEPS = all_steps()
SHORT = [doc for doc, steps in STEPS.items() if any(isinstance(s, Command) and not s.long for s in steps)]


def test_every_shown_command_is_read():
    """The reader misses no `$ progress` line (one outside a fenced block, or in an unclosed one, would be)."""
    shown = sum(len(re.findall(r"^\s*\$ progress\b", (REPO / doc).read_text(), re.M)) for doc in DOCS)
    read = [s for steps in STEPS.values() for s in steps if isinstance(s, Command) and s.text.startswith("progress")]
    assert len(read) == shown > 40
    assert 0 < sum(s.long for s in read) < len(read) // 3  # most run here, a few in the benchmark


@pytest.mark.parametrize("doc", SHORT)
def test_the_docs_commands_run_as_shown(doc, tmp_path):
    folder = mirror(tmp_path)
    failures = []
    for step in STEPS[doc]:
        if isinstance(step, File):
            failures.append(place(step, folder))
        elif not step.long:
            status, output = run(step, folder, timeout=60)
            failures.append(mismatch(step, status, output, folder))
    assert [f for f in failures if f] == []


SAMPLE = """\
A doc.

``` file=t.axb
thread 0
  AXB(x, 0, end, true, 1)
```

```
$ progress check t.axb --model fair --weak
t: fair weak: guaranteed to terminate (... states, 1 transition)
...
$ echo $?
0
$ progress check t.axb --model unfair
t: unfair none: may not terminate (2 states, 2 transitions)
$ progress models
```

```long
$ progress synth -t 9
```
"""


def test_the_reader_and_the_comparison_can_fail(tmp_path):
    """The conventions read as documented, and a wrong output, a wrong exit status or a crash fails."""
    steps = steps_of("x.md", SAMPLE)
    assert [type(s).__name__ for s in steps] == ["File", "Command", "Command", "Command", "Command"]
    check, wrong, models, synth = steps[1:]
    assert isinstance(check, Command) and check.status == 0 and check.line == 9 and not check.long
    assert isinstance(models, Command) and models.shown is None  # last of its block, nothing shown
    assert isinstance(synth, Command) and synth.long
    folder = mirror(tmp_path)
    assert place(steps[0], folder) is None and (folder / "t.axb").read_text().startswith("thread 0\n")
    assert mismatch(check, *run(check, folder, 60), folder) is None
    assert "differs" in str(mismatch(wrong, *run(wrong, folder, 60), folder))  # the run says "terminate"
    assert "exit 1, the doc shows 0" in str(mismatch(check, 1, "", folder))
    assert "exit 70" in str(mismatch(models, 70, "boom", folder))
    readme = File("x.md", 1, "README.md", ("not the README",))
    assert "differs from the repository's" in str(place(readme, folder))


def test_the_folder_stands_in_for_the_root(tmp_path):
    folder = mirror(tmp_path)
    assert (folder / "litmus" / "paper" / "mutex.axb").is_file()
    assert {p.name for p in folder.iterdir()} >= {"README.md", "docs", "litmus", "tests"}
    assert all(p.is_symlink() and p.resolve().parent == REPO for p in folder.iterdir())
    assert not any(Path(p).name.startswith(".") for p in folder.iterdir())
