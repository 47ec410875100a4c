"""What every command that reaches hosts over SSH shares: the SSH flags, the pool, host-key
acceptance, a refused host key or an unreachable host as exit 1, and a step report as text or
JSON."""

from __future__ import annotations

import argparse
import asyncio
import base64
import getpass
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, TypeVar

from .command import Command, Outcome, Refused

if TYPE_CHECKING:   # SSH libraries load only when a command reaches a host (`bench local:` needs none)
    from ..remote.loop import Progress
    from ..remote.ssh import PassphraseMemo, SshPool
    from ..remote.steps import RunReport

T = TypeVar("T")
_FINGERPRINT = re.compile(r"SHA256:([A-Za-z0-9+/]{43})=?")


def host_key_fingerprint(text: str) -> str:
    """``--accept-host-key``'s value as ssh-keygen -l prints it (``SHA256:`` and the 43
    base64 characters of 32 bytes; a trailing ``=`` is dropped), or ArgumentTypeError naming
    what is wrong: argparse makes it exit 2 before the command does anything, dry runs too."""
    m = _FINGERPRINT.fullmatch(text)
    if m is not None:
        digest = m.group(1)
        raw = base64.b64decode(digest + "=")
        if base64.b64encode(raw).decode().rstrip("=") == digest:
            return f"SHA256:{digest}"
    if text[:4].upper() == "MD5:":
        why = "an MD5 fingerprint; give the SHA256 one (ssh-keygen -l -E sha256 -f KEY)"
    elif not text.startswith("SHA256:"):
        why = "expected a SHA256:... fingerprint as ssh-keygen -l prints it"
    elif m is not None:
        why = "not a SHA256 digest (its last character cannot end 32 bytes of base64)"
    else:
        digest = text.removeprefix("SHA256:")
        why = f"a SHA256 fingerprint has 43 base64 characters (A-Z a-z 0-9 + /) after SHA256:, this has {len(digest)}"
        if not re.fullmatch(r"[A-Za-z0-9+/]*=?", digest):
            why += ", not all of them base64"
    raise argparse.ArgumentTypeError(f"{text!r}: {why}")


def ssh_config_file(text: str) -> str:
    """``--ssh-config``'s value: a file the SSH layer can read (``remote.sshconfig``), checked
    when the command line is read, so a dry run refuses a bad one too (exit 2)."""
    from ..remote.sshconfig import ssh_config_problem

    problem = ssh_config_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(f"{text}: {problem}")
    return text


def add_ssh_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--ssh-config", metavar="FILE", type=ssh_config_file,
                   help="OpenSSH client config to use instead of ~/.ssh/config (hosts, users, ports, keys, ProxyJump, known_hosts)")
    p.add_argument("--accept-host-key", metavar="SHA256:...", action="append", default=[], type=host_key_fingerprint,
                   help="accept this unknown host key fingerprint once and remember it (repeatable)")
    p.add_argument("--ask-password", action="store_true",
                   help="ask for an SSH password when keys fail and keep it in the OS keyring only")


class RemoteCommand(Command):
    """A command that reaches hosts over SSH: it takes the SSH flags, and a host key refused
    or a host that cannot be reached ends it with exit 1 naming the host (and the key)."""

    def attach(self, subparsers, name, help, shared=None):
        parser = super().attach(subparsers, name, help, shared)
        add_ssh_arguments(parser)
        return parser

    def execute(self, args: argparse.Namespace) -> int:
        try:
            return super().execute(args)
        except Exception as exc:
            refused = host_refusal(exc)
            if refused is None:
                raise
            raise refused from exc


def _interactive() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


_passphrases: PassphraseMemo | None = None


def _passphrase_prompt() -> PassphraseMemo:
    """One memo per process, so a retry after accepting a host key does not ask again."""
    from ..remote.ssh import PassphraseMemo

    global _passphrases
    if _passphrases is None:
        _passphrases = PassphraseMemo(lambda name: getpass.getpass(f"passphrase for {name}: "))
    return _passphrases


def make_pool(args: argparse.Namespace) -> SshPool:
    """The SSH pool of every command that reaches hosts (preflight, provision, teardown,
    import, bench, campaign): the --ssh-config file, the fingerprints accepted up front, a key
    passphrase asked on the terminal once per process, and --ask-password."""
    from ..remote.ssh import SshOptions, SshPool

    config = [str(Path(args.ssh_config))] if args.ssh_config else None   # checked by ssh_config_file
    interactive = _interactive()
    return SshPool(SshOptions(
        config_files=config,
        accepted_fingerprints=set(args.accept_host_key),
        passphrase=_passphrase_prompt() if interactive else None,
        password_prompt=(lambda label: getpass.getpass(f"SSH password for {label}: ")) if interactive and args.ask_password else None,
    ))


def run_with_pool(args: argparse.Namespace, body: Callable[[SshPool], Awaitable[T]]) -> T:
    """Run ``body(pool)``; on an unknown host key ask the user (on a terminal) and retry."""
    from ..remote.hostkeys import UnknownHostKey
    from ..remote.steps import RunReport

    accepted: set[str] = set()
    while True:
        pool = make_pool(args)
        finished: list[T] = []

        async def main() -> T:
            try:
                finished.append(await body(pool))
                return finished[0]
            finally:
                await pool.close()

        try:
            return asyncio.run(main())
        except KeyboardInterrupt:
            # Ctrl-C after the work was done (while connections closed): the result stands
            if not finished:
                raise
            if isinstance(finished[0], RunReport):
                finished[0].interrupted = True
            return finished[0]
        except UnknownHostKey as exc:
            if args.json or not _interactive() or exc.fingerprint in accepted:
                raise
            print(f"{exc.host}: the host key of {exc.lookup} is not known yet:\n  {exc.algorithm} {exc.fingerprint}",
                  file=sys.stderr)
            answer = input("Type 'yes' to trust it and remember it in Brickyard's known_hosts: ")
            if answer.strip() != "yes":
                raise
            accepted.add(exc.fingerprint)
            print(f"stored in {exc.accept()}", file=sys.stderr)


def host_refusal(exc: Exception) -> Refused | None:
    """A refused host key (its fingerprint and what to do in the JSON) or an executor's
    error (a host unreachable, a command that could not start) as the command's refusal;
    None for anything else."""
    from ..remote.executor import ExecutorError

    if not isinstance(exc, ExecutorError):
        return None
    from ..remote.hostkeys import HostKeyChanged, HostKeyError, UnknownHostKey, host_key_json

    if isinstance(exc, HostKeyError):
        extra = {"host": getattr(exc, "host", "")}
        if isinstance(exc, (UnknownHostKey, HostKeyChanged)):
            extra["host_key"] = host_key_json(exc)
        return Refused(str(exc), line=f"error: {exc}", **extra)
    return Refused(str(exc))


def cli_progress(as_json: bool) -> Progress:
    """Log lines go to stderr as they happen (stdout stays clean for --json)."""
    from ..remote.loop import Progress

    quiet = os.environ.get("BRICKYARD_QUIET") == "1"
    return Progress(on_log=None if quiet else (lambda line: print(line, file=sys.stderr, flush=True)))


def report_outcome(report: RunReport) -> Outcome:
    """A step report: exit 0 done, 1 a step failed, 130 interrupted by Ctrl-C."""
    from ..remote.commandline import dry_run_lines

    code = 130 if report.interrupted else 0 if report.ok else 1
    return Outcome(code, doc={**report.to_json(), "exit": code},
                   text=dry_run_lines(report) if report.dry_run else report.summary())


class VolumeStepsCommand(RemoteCommand):
    """A command that runs steps on one volume's hosts (provision, teardown): FILE and
    ``--volume``, ``--dry-run`` prints every command per host, otherwise the steps run over
    SSH and their report is the outcome. A volume the steps refuse (``ProvisionError``,
    ``TopologyError``) is exit 1 before anything runs."""

    #: the report's action word
    action = ""
    volume_help = ""

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        from .inputs import add_topology_arguments

        add_topology_arguments(p, self.volume_help)
        self.add_step_arguments(p)
        p.add_argument("--dry-run", action="store_true", help="print every command per host and run nothing")

    def add_step_arguments(self, p: argparse.ArgumentParser) -> None:
        """The command's own flags."""

    def plan(self, topo, volume, args: argparse.Namespace) -> tuple[list, list[str], object]:
        """(the steps, notes for the dry run, what ``run_steps`` needs)."""
        raise NotImplementedError

    def confirm(self, volume, planned: object, args: argparse.Namespace) -> None:
        """Refuse (UsageError, Refused) what must be confirmed before anything runs."""

    async def run_steps(self, topo, volume, planned: object, hosts, progress: Progress,
                        args: argparse.Namespace) -> RunReport:
        raise NotImplementedError

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..core.topology import TopologyError
        from ..remote.hosts import TopologyHosts
        from ..remote.provision import ProvisionError
        from ..remote.steps import dry_run
        from .inputs import load_topology, pick_volume

        topo = load_topology(args.file)
        volume = pick_volume(topo, args.volume)
        try:
            steps, notes, planned = self.plan(topo, volume, args)
        except (ProvisionError, TopologyError) as exc:
            raise Refused(str(exc)) from None
        if args.dry_run:
            return report_outcome(dry_run(self.action, volume.name, steps, notes))
        self.confirm(volume, planned, args)
        hosts = TopologyHosts(topo)
        progress = cli_progress(args.json)

        async def body(pool: SshPool) -> RunReport:
            hosts.pool = pool
            return await self.run_steps(topo, volume, planned, hosts, progress, args)

        return report_outcome(run_with_pool(args, body))
