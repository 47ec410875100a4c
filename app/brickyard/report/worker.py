"""The report writer as a separate process, for the app: ``brickyard report --worker``.

A report of 100 runs takes 10–20 s of CPU (the comparisons' bootstrap, then painting ~190
pages). In the window's process that froze the window; on a thread of it, Python's GIL still
held the window up for up to a fifth of a second at a time. A process of its own leaves the
window nothing to do but read a line now and then. It talks JSON, one document a line:

stdin (the app → the writer)::

    {"source": {"kind": "runs", "db": URL, "runs": [ID, …], "topology": TEXT|null}}   # first line
    {"source": {"kind": "campaign", "db": URL, "campaign": ID}}
    {"source": {"kind": "plan", "topology": TEXT, "volume": NAME, "failures": [SPEC, …]}}
    {"source": {"kind": "change", "db": URL, "change": ID}}      # the record of a change to a live volume
    {"command": "write", "path": P, "paper": "a4", "title": T, "author": A}   # any number of times
    {"command": "cancel"}          # stops what is under way (preparing or writing)
    {"command": "quit"}            # ends the writer once what was asked before it is done
                                   # (end of input: the app is gone, what is under way is cancelled)

stdout (the writer → the app)::

    {"event": "progress", "phase": "prepare"|"write", "fraction": 0.42, "text": "comparing run 12 of 48 …"}
    {"event": "prepared", "title": …, "author": …, "subject": …, "kind": …, "runs": [ID, …]}
    {"event": "written", "file": P, "format": "pdf", "paper": "a4", "pages": 12, "bytes": 345678}
    {"event": "failed", "phase": …, "error": "one sentence for the user"}
    {"event": "cancelled", "phase": …}

The content is built once (``prepared``) and kept: a write that fails (a full disk, a folder
you cannot write to) or is cancelled can be tried again with another file at once. The
source carries the history's URL on stdin, never on the command line, where ``ps`` would show
a database password.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import sys
import threading
import time
import traceback
from typing import IO, Any

from ..remote.loop import Cancelled, Progress

PROGRESS_EVERY = 0.1       # seconds between two progress lines at most (a page is a few ms)


class Channel:
    """One JSON document a line on ``out``; progress lines thinned to one per ``PROGRESS_EVERY``."""

    def __init__(self, out: IO[str]):
        self.out = out
        self._last = 0.0
        self._lock = threading.Lock()

    def send(self, event: str, **fields: Any) -> None:
        line = json.dumps({"event": event, **fields}, ensure_ascii=False, default=str)
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def progress(self, phase: str) -> Progress:
        def report(fraction: float, text: str) -> None:
            now = time.monotonic()
            if now - self._last >= PROGRESS_EVERY or fraction >= 1.0:
                self._last = now
                self.send("progress", phase=phase, fraction=round(fraction, 4), text=text)
        return Progress(on_progress=report)


class Commands:
    """stdin read on a thread of its own: a ``cancel`` reaches the work under way at once (and
    any command sent before it that has not started: it is answered ``cancelled``);
    everything else waits in a queue for the main loop."""

    def __init__(self, stream: IO[str]):
        self.queue: queue.Queue[tuple[int, dict] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._current: Progress | None = None
        self._seq = 0
        self._cancel_upto = 0
        self._thread = threading.Thread(target=self._read, args=(stream,), name="report-commands", daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            line = line.strip()
            if not line:
                continue
            try:
                doc = json.loads(line)
            except ValueError:
                doc = None
            if not isinstance(doc, dict):
                doc = {"command": "bad", "line": line[:200]}
            if doc.get("command") == "cancel":
                self._cancel()
                continue
            if doc.get("command") == "quit":      # what was asked before it is still done
                self.queue.put(None)
                return
            with self._lock:
                self._seq += 1
                self.queue.put((self._seq, doc))
        self._cancel()                  # end of input without quit: the app is gone
        self.queue.put(None)

    def _cancel(self) -> None:
        with self._lock:
            self._cancel_upto = self._seq
            work = self._current
        if work is not None:
            work.cancel()

    def next(self) -> tuple[int, dict] | None:
        return self.queue.get()

    def start(self, seq: int, progress: Progress) -> None:
        """``progress`` is the work of command ``seq`` from now on (cancelled at once if a
        cancel came after that command was sent)."""
        with self._lock:
            self._current = progress
            if seq <= self._cancel_upto:
                progress.cancel()

    def done(self) -> None:
        with self._lock:
            self._current = None


def build_content(source: dict, progress: Progress):
    """The ``ReportContent`` a source asks for. Raises ``ReportInputError`` (or another
    ``ValueError``: an unknown run, a failure spec naming nothing) with a sentence for the user."""
    from ..core import topofile
    from . import ReportInputError, content_from_campaign, content_from_plan, content_from_runs

    kind = source.get("kind")
    text = source.get("topology")
    topology = None
    if text:
        try:
            topology = topofile.loads(text)
        except topofile.TopologyFileError as exc:
            raise ReportInputError(f"the topology does not load: {exc}") from None
    if kind == "plan":
        if topology is None:
            raise ReportInputError("a plan report needs the topology")
        name = source.get("volume")
        volume = next((v for v in topology.volumes if v.name == name), None)
        if volume is None:
            raise ReportInputError(f"no volume named {name!r} in the topology")
        return content_from_plan(topology, volume, list(source.get("failures") or []))
    if kind not in ("runs", "campaign", "change"):
        raise ReportInputError(f"nothing to report on: source kind {kind!r}")
    from ..store import HistoryStore

    url = source.get("db") or ""
    if not url:
        raise ReportInputError("no history database given")
    store = HistoryStore(url, migrate_schema=False)
    try:
        if kind == "change":
            from .changerecord import content_from_change

            return content_from_change(store, source.get("change") or "")
        if kind == "campaign":
            return content_from_campaign(store, source.get("campaign") or "", progress=progress)
        return content_from_runs(store, list(source.get("runs") or []), topology, progress=progress)
    finally:
        store.close()


def write(content: Any, command: dict, progress: Progress) -> Any:
    from . import export_report

    title = str(command.get("title") or "").strip() or content.title
    author = str(command.get("author") or "").strip() or content.author
    content = dataclasses.replace(content, title=title, author=author)
    return export_report(content, str(command.get("path") or ""), str(command.get("paper") or "a4"), progress)


def serve(stdin: IO[str], stdout: IO[str]) -> int:
    """Answer the app until it quits or closes stdin; 0 unless the first line is no source."""
    from . import ReportInputError, ensure_app, write_error_words

    channel = Channel(stdout)
    commands = Commands(stdin)
    first = commands.next()
    if first is None:
        return 0
    seq, doc = first
    source = doc.get("source")
    if not isinstance(source, dict):
        channel.send("failed", phase="prepare", error="the first line must be {\"source\": …}")
        return 2
    ensure_app()
    progress = channel.progress("prepare")
    commands.start(seq, progress)
    try:
        progress.check()
        content = build_content(source, progress)
    except Cancelled:
        channel.send("cancelled", phase="prepare")
        return 0
    except (ReportInputError, ValueError, KeyError) as exc:    # StoreError, FailureSpecError, CampaignFileError
        channel.send("failed", phase="prepare", error=str(exc))
        return 0
    except Exception as exc:  # noqa: BLE001 - a bug: said to the app, which logs it
        channel.send("failed", phase="prepare", error=f"internal error: {type(exc).__name__}: {exc}",
                     traceback=traceback.format_exc())
        return 1
    finally:
        commands.done()
    channel.send("prepared", title=content.title, author=content.author, subject=content.subject,
                 kind=content.kind, runs=list(content.run_ids))
    while True:
        item = commands.next()
        if item is None:
            return 0
        seq, command = item
        if command.get("command") != "write":
            channel.send("failed", phase="write", error=f"unknown command: {json.dumps(command)[:200]}")
            continue
        progress = channel.progress("write")
        commands.start(seq, progress)
        try:
            progress.check()
            result = write(content, command, progress)
        except Cancelled:
            channel.send("cancelled", phase="write")
        except ReportInputError as exc:
            channel.send("failed", phase="write", error=str(exc))
        except OSError as exc:
            channel.send("failed", phase="write", error=write_error_words(str(command.get("path") or ""), exc))
        except Exception as exc:  # noqa: BLE001 - a bug: said to the app, which logs it
            channel.send("failed", phase="write", error=f"internal error: {type(exc).__name__}: {exc}",
                         traceback=traceback.format_exc())
        else:
            channel.send("written", **result.to_json())
        finally:
            commands.done()


def main() -> int:
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8")
    return serve(sys.stdin, sys.stdout)
