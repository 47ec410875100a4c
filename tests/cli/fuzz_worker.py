"""The process the fuzz test (test_fuzz_inputs.py) runs its cases in, under an address-space
and CPU limit it cannot raise: one JSON request per line on stdin (``{"argv": [...]}``), one
JSON answer per line on stdout (exit code, what the command printed, seconds, peak RSS).

Running many cases in one process keeps the fixed CI budget for cases, not interpreter
starts; the limit is the one a real user's machine would hit first: a case that tries to
allocate gigabytes gets MemoryError (which the CLI would report as an internal error, a
failure here) instead of swapping the machine."""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys
import time
import traceback


def main() -> None:
    from brickyard.cli import main as cli_main

    answers = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        out, err = io.StringIO(), io.StringIO()
        started = time.monotonic()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code: object = cli_main(request["argv"])
        except BaseException as exc:  # noqa: BLE001 - anything escaping main() is the finding
            code = f"raised {type(exc).__name__}"
            err.write(traceback.format_exc())
        answers.write(json.dumps({
            "exit": code, "stdout": out.getvalue(), "stderr": err.getvalue(),
            "seconds": time.monotonic() - started,
            "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        }) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
