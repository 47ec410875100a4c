"""The Change tab's run: Apply, Cancel, Resume and Roll back, and what the window shows while a
change runs and when it ends. A part of ``view.ChangeView`` (a mixin over its widgets and its
``control.ChangeControl``), kept apart so each file reads as one thing: ``view`` lays the tab out
and plans; this runs.

- Apply: read again, plan again, pre-flight (``ChangeControl.check``); the run starts only when
  the plan is still the one shown and the checks pass.
- Cancel, and a window that closes (``stop_for_close``): the runner stops the running step and any
  rebalance or remove-brick it started; the change stays in the history as interrupted.
- Resume: the stored change planned again from what it stored, checked, run; what is done is read
  back from the cluster and skipped. Roll back: the volume read as it is now, planned back to the
  volume before the change, checked, run as a change of its own.
- The end: every step's status, the report's notes, the drawing in gluster's order, the volume
  read back.
"""

from __future__ import annotations

import time

from ...core import changeedits as ce
from ...core import changewords as cw
from ...core.changemodel import ChangePlan
from ...core.topology import TopologyError
from ...remote.hostkeys import HostKeyChanged, UnknownHostKey
from ..cluster import hostkey_dialog

FINISHED_WORDS = {"complete": "Change complete", "interrupted": "Change interrupted", "failed": "Change stopped",
                  "cancelled": "Change cancelled", "rolled-back": "Change rolled back"}


class ChangeRunning:
    """Apply, Cancel, Resume, Roll back and the run's events, for ``ChangeView``."""

    def apply(self) -> bool:
        """Read again, plan again, pre-flight; the run starts when all three agree (False: not started)."""
        if self.plan is None or not self.plan.ok or not self.plan.steps or self.control.busy:
            return False
        if not self.ack_box.isChecked():
            self._say("Tick that you have read the plan first.", error=True)
            return False
        volume = self.selected_volume()
        if not self.control.check(self.session.topo, volume, self.fix_layout_box.isChecked()):
            return False
        self._checking = "apply"
        self._say(f"Reading {volume} again and checking every server and the volume before anything runs…")
        self.sig_status.emit(f"Change of {volume}: checking")
        self._update_buttons()
        return True

    def _checked(self, live, plan: ChangePlan, report) -> None:
        mode, self._checking = self._checking, ""
        volume = plan.volume
        self.live, self.live_volume = live, volume
        self.preflight = report
        if mode == "resume":
            self._start_resume(report)
            return
        if plan_fingerprint(plan) != plan_fingerprint(self.plan):
            self.set_live(live, volume)
            self._say("The live volume changed since it was read: this is the plan now. Nothing ran; read it and "
                      "Apply again.", error=True)
            return
        if report is None or not report.ok:
            self._show_preflight(report)
            return
        from ...remote.change import ChangeError

        path = self.topology_path()
        try:
            runner = self.control.start(live, volume, self.fix_layout_box.isChecked(), str(path) if path else "",
                                        rates=self.control.rates())
        except ChangeError as exc:
            self._say(f"Not started: {exc}", error=True)
            self._update_buttons()
            return
        self._started(runner, f"Change {runner.change_id[:12]} of {volume} started")

    def _show_preflight(self, report) -> None:
        failed = [f"{h.host}: {c.name}: {c.message}" for h in (report.hosts if report else [])
                  for c in h.checks if c.status == "fail"]
        self.plan_panel.show_plan(self.plan, [*self._extra(self.plan), *(f"pre-flight: {f}" for f in failed)])
        self._say("The pre-flight found what must be fixed first (listed above); nothing ran.", error=True)
        if report is not None:
            self.run_panel.show()
            self.run_panel.tabs.setCurrentWidget(self.run_panel.log)
            for line in report.text().splitlines():
                self.run_panel.add_log(line)
        self.sig_status.emit("Change: pre-flight failed, nothing ran")
        self._update_buttons()

    def _started(self, runner, status: str) -> None:
        self.change_id = runner.change_id
        self.plan = runner.plan
        states = {k: v.get("status", "pending") for k, v in runner.state.steps.items()}
        done = {k for k, s in states.items() if s in ("done", "skipped")}
        self.plan_panel.show_plan(runner.plan, self._extra(runner.plan))
        self.plan_panel.set_all("waiting")
        for key in done:
            self.plan_panel.set_step(key, "done" if states[key] == "done" else "skipped")
        self.run_panel.show()
        self.run_panel.start(runner.plan, done)
        self.run_panel.tabs.setCurrentIndex(0)
        self.run_panel.add_log(f"--- change {runner.change_id[:12]} of {runner.volume}: {len(runner.plan.steps)} "
                               f"steps ({time.strftime('%Y-%m-%d %H:%M:%S')}) ---")
        self._say(f"Running change {runner.change_id[:12]}: Cancel leaves the volume consistent.")
        self.sig_status.emit(status)
        self.banner.hide()
        self._update_buttons()

    def cancel(self) -> bool:
        if not self.control.cancel():
            return False
        self._say("Cancelling: the running step is stopped, and any rebalance or remove-brick this change started…")
        self.run_panel.add_log("cancel asked")
        self._update_buttons()
        return True

    def stop_for_close(self, timeout: float = 30.0) -> bool:
        """The window closes: stop a running change the way Cancel does (a rebalance or
        remove-brick it started is stopped, its state saved as interrupted) and wait for that,
        up to ``timeout`` seconds; True when nothing runs any more."""
        from PySide6.QtCore import QCoreApplication, QEventLoop

        self.planner.drop()                 # a plan being made is not wanted any more
        if not self.control.running:
            return not self.control.busy
        self.cancel()
        deadline = time.monotonic() + timeout
        while self.control.busy and time.monotonic() < deadline:
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.02)
        return not self.control.busy

    def refresh_unfinished(self) -> None:
        """The banner: the newest unfinished change of the chosen volume, if any."""
        volume = self.selected_volume()
        record = None
        if volume and not self.control.running:
            try:
                records = self.control.store().changes.list(volume=volume, unfinished=True)
            except Exception:  # noqa: BLE001 - no history database: nothing to resume
                records = []
            record = records[0] if records else None
        self._unfinished = record.change_id if record is not None else ""
        if record is None:
            self.banner.hide()
        else:
            steps = record.state.get("steps", {})
            done = sum(1 for s in steps.values() if s.get("status") in ("done", "skipped"))
            message = record.state.get("message") or ""
            self.banner_text.setText(
                f"<b>Change {record.change_id[:12]} of {volume} ({cw.kinds_text(record.kinds)}) is {record.status}</b>"
                f" after {done} of {len(steps)} steps" + (f": {message}" if message else "") +
                ". Resume goes on where it stopped (what is done is read back and skipped); Roll back undoes it.")
            self.banner.show()
        self._update_buttons()

    def resume(self, change_id: str = "") -> bool:
        """Go on with a stored change: planned again from what it stored, checked, then run."""
        from ...remote.change import ChangeError

        change_id = change_id or self._unfinished
        if not change_id or self.control.busy:
            return False
        try:
            runner = self.control.prepare_resume(change_id)
        except (ChangeError, ValueError, KeyError) as exc:
            self._say(f"Cannot resume {change_id[:12]}: {exc}", error=True)
            return False
        own = {t for ids in runner.state.task_ids.values() for t in ids}
        if not self.control.check(runner.topo, runner.volume, bool(runner.options.get("fix_layout")), own, runner):
            return False
        self._resuming, self._checking = runner, "resume"
        self.plan = runner.plan
        self.plan_panel.show_plan(runner.plan)
        self._say(f"Resuming change {change_id[:12]}: reading {runner.volume} and checking the servers first…")
        self._update_buttons()
        return True

    def _start_resume(self, report) -> None:
        runner, self._resuming = self._resuming, None
        if report is not None and not report.ok:
            self._show_preflight(report)
            return
        self.control.run_prepared(runner)
        back = runner.options.get("rollback_of") or ""
        self._started(runner, f"Rolling back change {back[:12]}" if back else
                      f"Change {runner.change_id[:12]} resumed")

    def ask_rollback(self) -> bool:
        from PySide6.QtWidgets import QMessageBox

        if not self._unfinished or self.control.busy:
            return False
        answer = QMessageBox.question(
            self, "Roll back the change",
            f"Undo change {self._unfinished[:12]}: plan from the live volume back to the volume as it was before "
            "it, and run that (sets it added are removed again, their files migrated back first)?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes and self.rollback()

    def rollback(self, change_id: str = "") -> bool:
        """Undo a stored change: read the volume as it is now, plan back to the volume before the
        change, check, then run that (a change of its own, kept in the history)."""
        from ...core import topofile

        change_id = change_id or self._unfinished
        if not change_id or self.control.busy:
            return False
        try:
            record = self.control.store().changes.get(change_id)
            topo = topofile.from_dict(record.topology, "<stored change topology>")
        except Exception as exc:  # noqa: BLE001 - StoreError, a record this version cannot read
            self._say(f"Cannot roll back {change_id[:12]}: {exc}", error=True)
            return False
        if not self.control.read_live(topo, record.volume):
            return False
        self._rolling_back = change_id
        self._say(f"Reading {record.volume} as it is now, to plan the way back from change {change_id[:12]}…")
        self._update_buttons()
        return True

    def _roll_back_from(self, change_id: str, live) -> None:
        from ...remote.change import ChangeError

        try:
            runner = self.control.prepare_rollback(change_id, live)
        except (ChangeError, ValueError, KeyError) as exc:
            self._say(f"Nothing rolled back from {change_id[:12]}: {exc}", error=True)
            self._update_buttons()
            return
        if not self.control.check(runner.topo, runner.volume, False, set(), runner):
            return
        self._resuming, self._checking = runner, "resume"
        self.plan = runner.plan
        self.plan_panel.show_plan(runner.plan, self._extra(runner.plan))
        self._say(f"Rolling back change {change_id[:12]} as change {runner.change_id[:12]}: checking the servers "
                  "first…")
        self._update_buttons()

    # ---- while it runs -------------------------------------------------------------------------------
    def _event(self, ev) -> None:
        if ev.kind == "step":
            seconds = getattr(ev.detail, "seconds", None) if ev.status in ("done", "failed") else None
            self.plan_panel.set_step(ev.step, ev.status, ev.message, seconds)
            self.run_panel.step(ev.step, ev.status)
            title = getattr(getattr(ev.detail, "step", None), "title", ev.step)
            self.run_panel.add_log(f"{title}: {'started' if ev.status == 'running' else ev.status}"
                                   + (f" — {ev.message}" if ev.message else ""))
        elif ev.kind == "progress":
            self.run_panel.progress(ev.step, ev.fraction, ev.message, ev.detail)
        elif ev.kind == "log":
            self.run_panel.add_log(ev.message)
        elif ev.kind == "finished":
            self.run_panel.add_log(f"--- {ev.status}: {ev.message} ---")

    def _done(self, report, record) -> None:
        status = record.status if record is not None else ("complete" if report.ok else "failed")
        message = record.state.get("message", "") if record is not None else ""
        for outcome in report.outcomes:
            if outcome.status == "pending":
                self.plan_panel.set_step(outcome.step.key, "left")
        self.run_panel.finish(report.ok)
        lines = [f"{FINISHED_WORDS.get(status, status)}: {message}" if message else FINISHED_WORDS.get(status, status)]
        if not report.ok:
            lines += report.summary()[:1]
        lines += report.notes
        self._say("\n".join(lines), error=not report.ok, ok=report.ok)
        self.sig_status.emit(f"Change of {report.subject}: {status}")
        self.ack_box.setChecked(False)
        if report.ok and self.plan is not None:
            self._draw_result(self.plan, self.control.topo)
        self.refresh_unfinished()
        self._update_buttons()
        if report.ok:                                  # done means read back: show what gluster has now
            self._read_back = self.read_live()
        failed = report.failed
        if failed is not None and isinstance(failed.error, UnknownHostKey):
            self._host_key(failed.error)

    def _draw_result(self, plan: ChangePlan, like) -> None:
        """The drawing takes the volume as the change left it (the planner may have regrouped new
        bricks; a change resumed from the history may add servers this drawing lacks)."""
        try:
            edit = ce.match_live(self.session.topo, plan.volume, plan.result, like)
        except TopologyError:
            return
        if edit is not None and self.session.push(edit):
            self._replan_timer.stop()        # not an edit of the admin's: the read-back that follows plans again
            self.run_panel.add_log("the drawing now lists the bricks in the order gluster has them (Undo: Ctrl+Z)")

    def _failed(self, what: str, exc: BaseException) -> None:
        self._checking = ""
        self._resuming = None
        self._read_back = False
        self._rolling_back = ""
        if isinstance(exc, UnknownHostKey):
            self._say(f"Stopped at a host key: {exc.host} is not known yet.", error=True)
            self._host_key(exc)
        elif isinstance(exc, HostKeyChanged):
            self._say(f"The host key of {exc.host} has CHANGED: refused.", error=True)
            hostkey_dialog.show_changed(exc, self)
        elif what == "read":
            self.live_label.setText("Not read.")
            self._say(f"Cannot read the volume: {exc}", error=True)
        elif what == "check":
            self._say(f"Nothing ran: {exc}", error=True)
        else:
            self._say(f"The change stopped: {exc}. It is kept in the history: Resume goes on.", error=True)
            self.run_panel.finish(False)
            self.refresh_unfinished()
        self.sig_status.emit(f"Change: {exc}")
        self._update_buttons()

    def _host_key(self, err: UnknownHostKey) -> None:
        errors = [err, *err.others]
        names = [e.host for e in errors]
        trusted, refused = hostkey_dialog.ask_unless_refused(errors, names, self._refused, self)
        if trusted and not refused:
            self.sig_status.emit(f"Stored the host key of {', '.join(names)}: read the volume again")
            self.read_live()


def plan_fingerprint(plan: ChangePlan | None) -> tuple:
    if plan is None:
        return ()
    return (plan.ok, tuple(r.code for r in plan.refusals),
            tuple((s.key, s.host, tuple(map(tuple, s.commands))) for s in plan.steps))
