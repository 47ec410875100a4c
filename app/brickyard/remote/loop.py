"""One asyncio loop in its own thread, and the progress/cancel object long work takes.

The GUI thread (or the CLI) calls ``AsyncLoopThread.submit(coro)`` and gets a
``concurrent.futures.Future``; the UI layer turns completion and ``Progress`` callbacks into
Qt signals. Nothing here imports Qt.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from typing import Any, Awaitable, Callable, Coroutine, TypeVar

T = TypeVar("T")
#: every line a run, provisioning, teardown or campaign shows in its log also goes to the log file
run_log = logging.getLogger("brickyard.run")


class Cancelled(Exception):
    """Raised by ``Progress.check()`` once the user asked to stop."""


class Progress:
    """What a service reports while it works and how it learns it should stop.

    Callbacks run on whatever thread the service runs on (the loop thread); a UI wraps
    them into signals. ``lines`` keeps the log so a CLI or report can show it afterwards.
    """

    def __init__(
        self,
        on_progress: Callable[[float, str], None] | None = None,
        on_log: Callable[[str], None] | None = None,
    ):
        self._on_progress = on_progress
        self._on_log = on_log
        self._cancel = threading.Event()
        self._cancel_hooks: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self.fraction = 0.0
        self.text = ""
        self.lines: list[str] = []

    def set_progress(self, fraction: float, text: str = "") -> None:
        self.fraction = min(1.0, max(0.0, float(fraction)))
        self.text = text
        if self._on_progress is not None:
            self._on_progress(self.fraction, text)

    def log(self, line: str) -> None:
        self.lines.append(line)
        run_log.info("%s", line)
        if self._on_log is not None:
            self._on_log(line)

    def cancel(self) -> None:
        """Ask the work to stop (any thread). Registered hooks run once."""
        with self._lock:
            if self._cancel.is_set():
                return
            self._cancel.set()
            hooks, self._cancel_hooks = self._cancel_hooks, []
        run_log.info("cancel asked%s", f" during: {self.text}" if self.text else "")
        for hook in hooks:
            hook()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        if self._cancel.is_set():
            raise Cancelled("cancelled by the user")

    def on_cancel(self, hook: Callable[[], None]) -> None:
        """Run ``hook`` when cancel() is called (at once if it was already)."""
        with self._lock:
            if not self._cancel.is_set():
                self._cancel_hooks.append(hook)
                return
        hook()


async def run_cancellable(progress: Progress | None, coro: Awaitable[T]) -> T:
    """Await ``coro`` in a task that ``progress.cancel()`` cancels (killing remote commands)."""
    task = asyncio.ensure_future(coro)
    if progress is not None:
        loop = asyncio.get_running_loop()
        progress.on_cancel(lambda: loop.call_soon_threadsafe(task.cancel))
    try:
        return await task
    except asyncio.CancelledError:
        if progress is not None and progress.is_cancelled():
            raise Cancelled("cancelled by the user") from None
        raise


class AsyncLoopThread:
    """A daemon thread running one asyncio event loop for the app's whole life."""

    def __init__(self, name: str = "brickyard-asyncio"):
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        self._loop.run_forever()
        # stopped: finish what is cancelling, then close
        pending = [t for t in asyncio.all_tasks(self._loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.run_until_complete(self._loop.shutdown_asyncgens())
        self._loop.close()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def submit(self, coro: Coroutine[Any, Any, T]) -> "concurrent.futures.Future[T]":
        """Schedule ``coro`` on the loop; cancelling the returned future cancels the task."""
        if not self._thread.is_alive():
            coro.close()
            raise RuntimeError("the asyncio loop thread has stopped")
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Submit and block until done (CLI and tests; never from the GUI thread)."""
        return self.submit(coro).result(timeout)

    def run_through_interrupts(self, coro: Coroutine[Any, Any, T], on_interrupt: Callable[[], None]) -> T:
        """Submit and block until done, as a command line does: each Ctrl-C meanwhile calls
        ``on_interrupt`` (which asks the work to stop, and may raise to give up waiting) and the
        wait goes on, so the work ends in the state its cancel leaves. What ``coro`` raises is
        raised here."""
        future = self.submit(coro)
        while True:
            try:
                return future.result()
            except KeyboardInterrupt:
                try:
                    on_interrupt()
                except BaseException:       # given up waiting: the work is cancelled too
                    future.cancel()
                    raise

    def stop(self, timeout: float = 10.0) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)

    def __enter__(self) -> "AsyncLoopThread":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
