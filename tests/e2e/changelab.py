"""What the change e2e tests share: a volume provisioned on the lab with a corpus written and
checksummed on its client, `brickyard change` run as a user runs it (a subprocess, --json),
and the checks that nothing was lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from brickyard.core import topofile
from brickyard.core.topology import BrickRef, Layout, Topology
from brickyard.remote.hosts import TopologyHosts
from brickyard.remote.loop import Progress
from brickyard.remote.provision import provision_plan, run_provision
from brickyard.store import HistoryStore

from .labvolume import drop_test_volume
from .test_provision_lab import lab_volume_topology, run_on_pool

CORPUS_SCRIPT = (Path(__file__).with_name("corpus_script.py")).read_text()
CLIENT = "client1"
# corpus_script.py's sizes: "small" (~200 files, 30 MB, every kind of entry), "many" (2,000 files,
# nearly all tiny, ~45 MB) or "full" (2,000+ files, 140 MB). Each test volume names its own
# (test_change_lab.py: "many", the 2,000+); BRICKYARD_CHANGE_CORPUS=small|many|full sets every volume's
CORPUS = os.environ.get("BRICKYARD_CHANGE_CORPUS", "")
LARGE = ("many", "full")


def df_bytes(lab, path: str) -> int:
    return int(lab.ssh(CLIENT, ["df", "-B1", "--output=size", path]).stdout.split()[-1])


@dataclass
class LabChange:
    """One test volume: its drawing, where the client mounts it, its corpus manifest, and
    `brickyard change` against it with its own history database."""

    lab: object
    name: str
    topo: Topology
    workdir: Path
    manifest: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    corpus: str = ""
    drawn: set = field(default_factory=set)     # every brick any drawing named: what drop() removes
    dropped: bool = False

    @property
    def mount(self) -> str:
        return f"/mnt/{self.name}"

    @property
    def db(self) -> str:
        return f"sqlite:///{self.workdir / 'history.sqlite3'}"

    @classmethod
    def provision(cls, lab, tmp_path: Path, name: str, layout: Layout, bricks: list[tuple[int, int]],
                  options: dict[str, str] | None = None) -> "LabChange":
        topo = lab_volume_topology(lab, name, layout, bricks, options)
        vol = cls(lab, name, topo, tmp_path)
        vol.drawn.update(str(b) for b in topo.require_volume(name).bricks)
        t0 = time.monotonic()
        plan = provision_plan(topo, name)
        report = run_on_pool(lab, lambda pool: run_provision(plan, TopologyHosts(topo, pool), Progress()))
        assert report.ok, "\n".join(report.summary())
        vol.timings["provision"] = time.monotonic() - t0
        return vol

    def write_corpus(self, seed: int, size: str) -> dict:
        """The corpus of this ``size`` (or ``CORPUS``, when set) written and checksummed on the
        client in one process (one SSH session, one pass)."""
        size = CORPUS or size
        t0 = time.monotonic()
        out = self.lab.ssh(CLIENT, ["python3", "-", "write", self.mount, str(seed), size], input=CORPUS_SCRIPT,
                           timeout=900)
        self.manifest = json.loads(out.stdout)
        self.timings[f"corpus ({size})"] = time.monotonic() - t0
        self.corpus = size
        files = [e for e in self.manifest.values() if e[0] == "file"]
        assert len(files) >= (2000 if size in LARGE else 200) and max(e[1] for e in files) >= 10 << 20
        assert any(e[0] == "link" for e in self.manifest.values()) and any(e[4] for e in files)
        return self.manifest

    def read_corpus(self) -> dict:
        """The tree as a fresh mount reads it (unmounted and mounted again: nothing cached)."""
        t0 = time.monotonic()
        self.lab.ssh(CLIENT, ["umount", self.mount])
        self.lab.ssh(CLIENT, ["mount", "-t", "glusterfs", f"node1:/{self.name}", self.mount])
        out = self.lab.ssh(CLIENT, ["python3", "-", "read", self.mount], input=CORPUS_SCRIPT, timeout=900)
        self.timings["verify"] = self.timings.get("verify", 0.0) + time.monotonic() - t0
        return json.loads(out.stdout)

    def assert_nothing_lost(self) -> None:
        now = self.read_corpus()
        missing = sorted(set(self.manifest) - set(now))[:5]
        extra = sorted(set(now) - set(self.manifest))[:5]
        changed = [k for k in self.manifest if k in now and now[k] != self.manifest[k]][:5]
        assert not missing and not extra and not changed, (missing, extra, changed)

    def save_drawing(self, bricks: list[tuple[int, int]] | list[str], layout: Layout | None = None,
                     file: str = "drawing.brickyard.json") -> Path:
        """The drawing of the volume with these bricks ((node, brick filesystem) or node:/path)."""
        volume = self.topo.require_volume(self.name)
        refs = [BrickRef.parse(b) if isinstance(b, str) else BrickRef(f"node{b[0]}", f"/srv/brick{b[1]}/{self.name}")
                for b in bricks]
        volume.bricks = refs
        self.drawn.update(map(str, refs))
        if layout is not None:
            volume.layout = layout
        path = self.workdir / file
        path.write_text(json.dumps(topofile.to_dict(self.topo), indent=1))
        return path

    def change_argv(self, drawing: Path, *flags: str) -> list[str]:
        return [sys.executable, "-m", "brickyard.cli", "change", str(drawing), "--volume", self.name,
                "--ssh-config", str(self.lab.ssh_config), "--db", self.db, "--json", *flags]

    def change(self, drawing: Path, *flags: str, timeout: float = 2400) -> tuple[int, dict, str]:
        """Run `brickyard change`; (exit code, its JSON document, its stderr)."""
        t0 = time.monotonic()
        proc = subprocess.run(self.change_argv(drawing, *flags), capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
        doc = json.loads(proc.stdout or "{}")
        label = f"change {drawing.stem} {' '.join(flags)}".strip()
        self.timings[label] = time.monotonic() - t0
        self._step_timings(label, doc)
        return proc.returncode, doc, proc.stderr

    def _step_timings(self, label: str, doc: dict) -> None:
        """Where a change's time went: each step of 1 s or more this run (a step done by an
        earlier, killed run keeps that run's seconds: shown once)."""
        for step in doc.get("steps", []):
            seconds = step.get("seconds")
            if seconds is not None and seconds >= 1 and f"step {step['key']}" not in self.timings:
                self.timings[f"step {step['key']}"] = float(seconds)

    def change_killed_at(self, drawing: Path, marker: str, *flags: str, timeout: float = 600) -> str:
        """Start `brickyard change`, SIGKILL it as soon as its log shows ``marker``; its stderr."""
        t0 = time.monotonic()
        out = self.workdir / f"{drawing.stem}-killed.stdout"    # its JSON, when it ends before the marker
        with open(out, "w") as stdout:
            proc = subprocess.Popen(self.change_argv(drawing, *flags), stdout=stdout, stderr=subprocess.PIPE,
                                    text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        lines = []
        try:
            deadline = time.monotonic() + timeout
            for line in proc.stderr:
                lines.append(line)
                if marker in line:
                    os.kill(proc.pid, signal.SIGKILL)
                    break
                assert time.monotonic() < deadline, "".join(lines[-20:])
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait(timeout=60)
        self.timings[f"change killed at {marker!r}"] = time.monotonic() - t0
        assert proc.returncode == -signal.SIGKILL, ("".join(lines[-30:]), out.read_text()[-3000:])
        return "".join(lines)

    def store(self) -> HistoryStore:
        return HistoryStore(self.db)

    def gluster_xml(self, *args: str) -> str:
        return self.lab.ssh("node1", ["gluster", "--mode=script", "--xml", *args]).stdout

    def heal_clean(self) -> bool:
        from brickyard.core.gluster_progress import parse_heal_summary

        heal = parse_heal_summary(self.gluster_xml("volume", "heal", self.name, "info", "summary"))
        return all(h.clean for h in heal)

    def drop(self) -> None:
        if os.environ.get("BRICKYARD_KEEP_CHANGE_VOLUME") == "1" or self.dropped:   # debugging a failure by hand
            return
        self.dropped = True
        bricks = sorted(self.drawn)
        drop_test_volume(self.lab, self.name, bricks, {CLIENT: self.mount})
        for brick in bricks:       # the markers provisioning and the change left beside each brick
            node, path = brick.split(":", 1)
            parent, base = path.rsplit("/", 1)
            self.lab.ssh(node, ["rm", "-f", "--", f"{parent}/.{base}.brickyard-created"], check=False)
        self.lab.ssh(CLIENT, ["rmdir", self.mount], check=False)

