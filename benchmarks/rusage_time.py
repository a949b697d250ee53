"""Run a command and write the fields of GNU `time -v` that
benchmarks/report_suites.py reads, for machines without /usr/bin/time.

    python benchmarks/rusage_time.py OUT.time COMMAND [ARG...]

Measured by os.wait4 on the command's process: wall time (monotonic clock),
user and system CPU seconds and the maximum resident set size, which Linux
reports for the process and the descendants it waited for (the largest of
them, not their sum), as GNU time does. Exits with the command's status.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time


def main() -> None:
    out, command = sys.argv[1], sys.argv[2:]
    started = time.monotonic()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    code = os.waitstatus_to_exitcode(status)
    minutes, seconds = divmod(wall, 60)
    with open(out, "w") as file:
        file.write(
            f'\tCommand being timed: "{" ".join(command)}"\n'
            f"\tUser time (seconds): {usage.ru_utime:.2f}\n"
            f"\tSystem time (seconds): {usage.ru_stime:.2f}\n"
            f"\tElapsed (wall clock) time (h:mm:ss or m:ss): {int(minutes)}:{seconds:05.2f}\n"
            f"\tMaximum resident set size (kbytes): {usage.ru_maxrss}\n"
            f"\tExit status: {code}\n"
            "\t(written by benchmarks/rusage_time.py: os.wait4)\n"
        )
    sys.exit(code)


if __name__ == "__main__":
    main()
