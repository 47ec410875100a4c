"""The planner's verdict on the current volume: findings, capacity, tolerance, state, estimate.

Every word and figure comes from the ``PlanResult``; this panel only lays them out.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton,
                               QVBoxLayout, QWidget)

from ....core.plan import PlanResult
from ....core.units import describe_size, format_rate
from ...frame.session import Session
from ...widgets import style
from .capacity_bar import CapacityBar

MAX_SET_ROWS = 200


def _rate(value: float | None) -> str:
    return "unknown" if value is None else format_rate(value)


class VerdictPanel(QWidget):
    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.findings = QLabel()
        self.findings.setWordWrap(True)
        self.findings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.capacity_bar = CapacityBar()
        self.capacity_text = QLabel()
        self.capacity_text.setWordWrap(True)
        self.tolerance = QLabel()
        self.tolerance.setWordWrap(True)
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.sets = QListWidget()
        self.sets.setMaximumHeight(120)
        self.failures = QLabel()
        self.failures.setWordWrap(True)
        self.clear_failures = QPushButton("Clear all failures")
        self.estimate = QLabel()
        self.estimate.setWordWrap(True)

        box = QVBoxLayout(self)
        box.addWidget(self._group("What gluster will say", self.findings))
        box.addWidget(self._group("Capacity", self.capacity_bar, self.capacity_text))
        box.addWidget(self._group("Failures tolerated", self.tolerance))
        fail_row = QHBoxLayout()
        fail_row.addWidget(self.failures, 1)
        fail_row.addWidget(self.clear_failures)
        state_group = self._group("Failure simulation (select + F, or Alt+click)", self.state, self.sets)
        state_group.layout().addLayout(fail_row)
        box.addWidget(state_group)
        self.estimate_group = self._group("Throughput estimate", self.estimate)
        box.addWidget(self.estimate_group)
        box.addStretch(1)
        self.clear_failures.clicked.connect(session.clear_failures)
        session.sig_plan_changed.connect(self.show_plan)
        self.show_plan(session.plan)

    @staticmethod
    def _group(title: str, *widgets: QWidget) -> QGroupBox:
        group = QGroupBox(title)
        layout = QVBoxLayout(group)
        for w in widgets:
            layout.addWidget(w)
        return group

    def show_plan(self, plan: PlanResult | None) -> None:
        self.sets.clear()
        if plan is None:
            for w in (self.capacity_text, self.tolerance, self.state, self.estimate, self.failures):
                w.setText("")
            self.capacity_bar.set_capacity(None)
            self.estimate_group.setTitle("Throughput estimate")
            self.findings.setText(self.session.plan_problem)
            return
        self._show_findings(plan)
        if plan.refused:
            self._show_refused(plan)
            return
        cap = plan.capacity
        self.capacity_bar.set_capacity(cap)
        if cap.free_now_bytes is None:
            free = "free now: not measured (Cluster ▸ Pre-flight check measures it)"
        else:
            free = (f"free now {describe_size(cap.free_now_bytes)}"
                    + (f" (measured {cap.free_measured})" if cap.free_measured else ""))
        lines = [f"raw {describe_size(cap.raw_bytes)}",
                 f"usable {describe_size(cap.usable_bytes)} when empty (the client's df size)", free,
                 f"overhead {describe_size(cap.overhead_bytes)}"]
        if cap.arbiter_bytes:
            lines.append(f"in arbiter bricks {describe_size(cap.arbiter_bytes)}")
        self.capacity_text.setText("\n".join(lines))
        tol = plan.tolerance
        text = f"Nodes: any {tol.nodes_worst} may fail; up to {tol.nodes_best} if the right ones fail."
        if tol.sites_worst is not None:
            text += f"\nSites: any {tol.sites_worst} may fail; up to {tol.sites_best} if the right ones fail."
        self.tolerance.setText(text)
        self._show_state(plan)
        self._show_estimate(plan)

    def _show_estimate(self, plan: PlanResult) -> None:
        """The model's four figures with their bound and range, under "Throughput predicted"
        and what it was calibrated on (a long list wraps there, a title would be cut off), or
        "Throughput estimate (uncalibrated)"."""
        est = plan.estimate
        self.estimate_group.setTitle("Throughput predicted" if est.calibrated else f"Throughput {est.label}")
        rows = []
        for p in est.predictions:
            who = "one file" if p.concurrency == 1 else f"{p.concurrency} files"
            rows.append(f"<tr><td>{p.direction} {who}</td><td align='right'><b>{format_rate(p.bps)}</b></td>"
                        f"<td style='color:#757575'>{format_rate(p.low)} … {format_rate(p.high)}</td>"
                        f"<td>{html.escape(p.bound)}</td></tr>")
        text = "<table cellspacing='4'>" + "".join(rows) + "</table>"
        if est.calibrated:
            text = f"<i>{html.escape(est.label)}</i>" + text
        if est.model is not None and any("client's own kernel" in n for n in est.model.notes):
            fan = est.model.params.get("fanout_cpu_seconds", "write")
            if fan is not None and fan.source == "fitted":
                what = ("what each extra brick RPC costs them is " +
                        ("fitted from two layouts" if "beside the plainest layout" in fan.note else
                         "derived from the calibration layout (an assumed split)"))
            else:
                what = "what each extra brick RPC costs them is not known; the range allows for it"
            text += ("<span style='color:#9a6700'>the servers share the client's CPUs (one kernel): "
                     f"{what} (hover)</span>")
        if est.model is not None and est.model.warnings:
            text += ("<br><span style='color:#b71c1c'>the calibration is noisy or misses its own figures: "
                     "the ranges carry it (hover; Cluster ▸ Calibrate says which points)</span>")
        tips = [f"{p.direction}, {'one file' if p.concurrency == 1 else f'{p.concurrency} files'}: "
                f"{p.bound} — {p.why}" for p in est.predictions]
        if est.model is not None:
            tips += [f"warning: {w}" for w in est.model.warnings]
        if est.model is not None:
            from ....core.calibration import describe_sources

            tips.append("parameters: " + describe_sources(est.model))
            tips += [f"note: {n}" for n in est.model.notes]
        small = plan.small_files()
        if small is not None:   # the write-up's extract and an uncached lstat at the topology's RTTs
            ex, ls = small["extract"], small["lstat"]
            on = small.get("calibrated_on") or []
            source = (f"calibrated on {', '.join(on)}" if on else
                      ex["source"] if ex["source"] == ls["source"] else f"{ex['source']}, lstat {ls['source']}")
            text += (f"<br>small files ({html.escape(small['kind'])}): the write-up's extract of {ex['objects']:,} "
                     f"objects ≈ {ex['seconds']:.0f} s ({ex['per_object_ms']:.2f} ms per object = "
                     f"{ex['local_ms']:.2f} ms + {ex['round_trips']:.3g} round trips × {ex['rtt_ms']:.3g} ms RTT), "
                     f"uncached lstat {ls['per_object_ms']:.3g} ms <span style='color:#757575'>"
                     f"({html.escape(source)})</span>")
            tips += [f"small files: {ex['note']}", f"small files, lstat: {ls['note']}"]
        if est.missing:
            text += "<br><span style='color:#757575'>unknown: " + html.escape("; ".join(est.missing)) + "</span>"
        self.estimate.setText(text)
        self.estimate.setToolTip("\n".join(tips))

    def _show_refused(self, plan: PlanResult) -> None:
        """gluster refuses the create: what it refuses is above; nothing here pretends otherwise."""
        self.capacity_bar.set_capacity(None)
        withheld = "— gluster refuses this layout, so there is no volume to size."
        self.capacity_text.setText(f"raw, usable, overhead {withheld}")
        self.tolerance.setText("— gluster refuses this layout: no volume, nothing to fail.")
        colour = style.SEVERITY_COLOURS.get("error", "#000")
        self.state.setText(f"<b style='color:{colour}'>No volume</b> — gluster would not create it "
                           f"({html.escape(plan.errors[0].message)})")
        self.failures.setText("Failed: " + (", ".join(self.session.failures) or "nothing"))
        self.clear_failures.setEnabled(bool(self.session.failures))
        self.estimate_group.setTitle("Throughput estimate")
        self.estimate.setText("— no volume, no estimate.")
        self.estimate.setToolTip("")

    def _show_findings(self, plan: PlanResult) -> None:
        if not plan.findings:
            ok = style.STATE_COLOURS["UP"]
            self.findings.setText(f"<span style='color:{ok}'>✓ gluster accepts this layout without a question</span>")
            return
        rows = []
        for finding in plan.findings:
            where = ""
            if finding.bricks:
                shown = ", ".join(str(b) for b in finding.bricks[:4])
                where = f" <i>[{html.escape(shown)}{' …' if len(finding.bricks) > 4 else ''}]</i>"
            colour = style.SEVERITY_COLOURS.get(finding.severity, "#000")
            word = style.SEVERITY_WORDS.get(finding.severity, finding.severity)
            rows.append(f"<p style='color:{colour}; margin:0 0 4px 0'><b>{word}:</b> "
                        f"{html.escape(finding.message)}{where}</p>")
        self.findings.setText("".join(rows))

    def _show_state(self, plan: PlanResult) -> None:
        state = plan.state
        colour = style.STATE_COLOURS.get(state.state, "#000")
        rw = ("readable" if state.readable else "NOT readable") + ", " + ("writable" if state.writable else "NOT writable")
        self.state.setText(f"<b style='color:{colour}; font-size:14pt'>Volume {state.state}</b> — "
                           f"{style.STATE_WORDS.get(state.state, '')} ({rw})")
        self.failures.setText("Failed: " + (", ".join(self.session.failures) or "nothing"))
        self.clear_failures.setEnabled(bool(self.session.failures))
        shown = [s for s in state.sets if s.state != "UP"] or list(state.sets[:MAX_SET_ROWS])
        for s in shown[:MAX_SET_ROWS]:
            item = QListWidgetItem(f"set {s.index + 1}: {s.state}"
                                   + (f" — failed {', '.join(str(b) for b in s.failed)}" if s.failed else ""))
            item.setForeground(QColor(style.STATE_COLOURS.get(s.state, "#000")))
            self.sets.addItem(item)
        ups = sum(1 for s in state.sets if s.state == "UP")
        if len(shown) < len(state.sets):
            self.sets.addItem(f"… and {ups} set(s) UP")
