"""bridge: what other threads hand to the GUI thread reaches it through one dispatcher, in order,
and never reaches (or touches) an object that was deleted meanwhile."""

import gc
import threading
import time
from concurrent.futures import Future

import shiboken6
from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QApplication, QWidget

from brickyard.ui.frame.bridge import FutureWatcher, GuiCall, QtProgress, RemoteBridge, SecretPrompt


class _Receiver(QObject):
    sig_value = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.calls: list[tuple] = []
        self.threads: list[threading.Thread] = []

    def take(self, *args):
        self.calls.append(args)
        self.threads.append(threading.current_thread())


def _from_thread(fn, *args):
    thread = threading.Thread(target=fn, args=args)
    thread.start()
    thread.join()


def test_a_call_from_another_thread_runs_on_the_gui_thread_in_the_order_made(qtbot):
    receiver = _Receiver()
    take, signal = GuiCall(receiver, "take"), GuiCall(receiver, "sig_value")
    emitted = []
    receiver.sig_value.connect(lambda value: emitted.append(value))

    def many():
        for i in range(200):
            take(i)
            signal(i)

    _from_thread(many)
    qtbot.waitUntil(lambda: len(receiver.calls) == 200 and len(emitted) == 200)
    assert receiver.calls == [(i,) for i in range(200)] and emitted == list(range(200))
    assert set(receiver.threads) == {threading.main_thread()}


def test_a_call_for_an_object_deleted_meanwhile_is_dropped_without_touching_it(qtbot):
    window = QWidget()
    receiver = _Receiver(window)      # owned by its window, as every relay is
    calls = receiver.calls
    take = GuiCall(receiver, "take")
    _from_thread(take, "before")       # queued, not delivered yet
    window.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(receiver))
    _from_thread(take, "after")
    QApplication.processEvents()
    QApplication.processEvents()
    # "before" was queued ahead of the delete and delivered; "after" found nobody
    assert calls in ([], [("before",)])
    assert ("after",) not in calls


def test_a_call_holds_its_object_only_weakly(qtbot):
    receiver = _Receiver()
    take = GuiCall(receiver, "take")
    del receiver
    gc.collect()
    _from_thread(take, 1)           # nobody left: no crash, nothing delivered
    QApplication.processEvents()


def test_a_watcher_deleted_before_its_future_finishes_is_never_reached(qtbot):
    future = Future()
    parent = QObject()
    watcher = FutureWatcher(future, parent)
    got = []
    watcher.sig_finished.connect(lambda: got.append(True))
    parent.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(watcher))
    _from_thread(future.set_result, 42)     # the loop thread finishing the work after the window closed
    QApplication.processEvents()
    assert got == []


def test_a_watcher_delivers_on_the_gui_thread(qtbot):
    future = Future()
    watcher = FutureWatcher(future)
    with qtbot.waitSignal(watcher.sig_done) as blocker:
        _from_thread(future.set_result, 42)
    assert blocker.args == [42] and watcher.finished


def test_progress_and_items_from_a_thread_arrive_as_signals(qtbot):
    relay = QtProgress()
    seen = []
    relay.sig_progress.connect(lambda f, text: seen.append(("progress", f, text)))
    relay.sig_log.connect(lambda line: seen.append(("log", line)))
    relay.sig_item.connect(lambda item: seen.append(("item", item)))

    def work():
        relay.progress.set_progress(0.5, "half")
        relay.progress.log("a line")
        relay.item("host1")

    _from_thread(work)
    qtbot.waitUntil(lambda: len(seen) == 3)
    assert seen == [("progress", 0.5, "half"), ("log", "a line"), ("item", "host1")]


def test_a_prompt_deleted_with_its_window_releases_whoever_waits_for_an_answer(qtbot):
    window = QWidget()
    prompt = SecretPrompt(window)
    prompt.answer = lambda kind, label: "never asked"
    waiters = prompt._waiters
    answers = []
    asking = threading.Thread(target=lambda: answers.append(prompt.ask("passphrase", "id_ed25519")))
    asking.start()
    deadline = time.monotonic() + 5
    while not waiters.open and time.monotonic() < deadline:   # asked; the GUI thread has not shown it
        time.sleep(0.01)
    assert waiters.open
    shiboken6.delete(window)       # the window closes before the question could be shown
    asking.join(5)
    assert not asking.is_alive() and answers == [None]
    QApplication.processEvents()   # the queued question finds nobody to ask


def test_a_bridge_without_a_parent_owns_its_prompt(qtbot):
    bridge = RemoteBridge(make_services=lambda options: None)
    assert bridge.prompt.parent() is bridge


def test_windows_deleted_while_a_thread_still_reports_to_them_never_crash(qtbot):
    """The loop thread reporting progress, items and a result to the relays of a window that is
    deleted meanwhile. Emitting on the relays from that thread (as before the dispatcher) was a
    segmentation fault within a few rounds of this loop."""
    delivered = []
    for round_no in range(100):
        window = QWidget()
        relay, future = QtProgress(window), Future()
        watcher = FutureWatcher(future, window)
        watcher.sig_done.connect(delivered.append)
        progress, item = relay.progress, relay.item

        def report(future=future, progress=progress, item=item):
            for k in range(200):
                progress.set_progress(k / 200, "writing")
                item(k)
            future.set_result(round_no)

        thread = threading.Thread(target=report)
        thread.start()
        del relay, watcher
        shiboken6.delete(window)        # the window closes while the thread goes on
        QApplication.processEvents()
        thread.join()
        QApplication.processEvents()
    assert delivered == []   # each watcher was gone before its result could be handed over


def _finished_watcher_waiting_for_its_deletion(bridge: RemoteBridge) -> FutureWatcher:
    """A watcher delivered and forgotten by ``bridge``, its deleteLater still pending (as when a
    test ends right after the delivery: pytest-qt's teardown runs the deletion)."""
    future = Future()
    watcher = bridge.watch(future, "the import from node1")
    future.cancel()                     # queues the delivery to the GUI thread
    QApplication.processEvents()        # delivered: the bridge forgets it and asks for its deletion
    assert watcher.finished and not bridge.busy and shiboken6.isValid(watcher)
    return watcher


def test_a_finished_watcher_is_deleted_without_deleting_the_bridge_a_second_time(qtbot):
    """The watcher's connection held the last reference to a bridge without a parent (the import
    dialog's tests build one): deleting the watcher deleted the bridge inside the watcher's
    destructor, which deleted the watcher again (SIGSEGV in QObject::~QObject, a run of
    test_import_dialog.py in 8)."""
    bridge = RemoteBridge(make_services=lambda options: None)
    watcher = _finished_watcher_waiting_for_its_deletion(bridge)
    bridge_gone = []
    bridge.destroyed.connect(lambda *_: bridge_gone.append(True))
    del bridge                                        # the dialog holding it is gone
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)   # the watcher's deleteLater
    assert bridge_gone and not shiboken6.isValid(watcher)


def test_a_view_kept_only_by_a_watchers_slot_is_released_without_a_crash(qtbot):
    """A view's slot on the watcher holds the view, the view holds the bridge, nobody else holds
    either (the view's test ended, or its window was closed): the watcher's deletion releases
    both, and must not be deleted again by the bridge it belonged to."""
    bridge = RemoteBridge(make_services=lambda options: None)
    view = QWidget()
    view.bridge = bridge
    watcher = _finished_watcher_waiting_for_its_deletion(bridge)
    watcher.sig_cancelled.connect(lambda v=view: v.setWindowTitle("cancelled"))   # holds the view
    views_gone = []
    view.destroyed.connect(lambda *_: views_gone.append(True))
    del bridge, view
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert views_gone and not shiboken6.isValid(watcher)
