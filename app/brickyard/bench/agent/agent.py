#!/usr/bin/env python3
"""Brickyard's benchmark agent: one self-contained file, standard library only.

Brickyard uploads this file to a temporary directory it created on the host, runs it with
``python3 -u agent.py``, talks to it in JSON lines (commands on stdin, events on stdout)
and removes the directory afterwards. Nothing is installed.

For each step it forks the N workers first, holds them at a barrier, releases them at once,
then records each worker's start, end and I/O counters on this host's monotonic clock. Closing stdin or SIGTERM cancels: every
process the workers started is killed and only the directories this agent created (``mkdir``
op) are removed, then its own. At start it removes what dead agents left in /tmp (see
"leftovers").

Every process a worker starts dies with the agent, however the agent ends (see "worker
processes"): each worker carries this agent's random tag in its environment, which every
process it starts inherits (fio's job processes, which leave the worker's session with a
setsid of their own; a shell's children; a daemon that forks twice), and a watchdog in a
session of its own kills every tagged process the moment the agent is gone — SIGKILLed
alone, or with its process group. What a step's workers leave running when the step ends is
killed too ("strays_killed" in step_done).

Commands (one JSON object per line):
  {"op": "hello"}
  {"op": "clock", "id": K}                       -> {"event": "clock", "id": K, "t": monotonic, "w": real time}
  {"op": "mkdir", "path": P}                     exclusive: fails if P exists; P becomes owned
  {"op": "rmtree", "path": P}                    only for owned paths (or files inside them)
  {"op": "tempdir", "kind": K}                   /tmp/brickyard-K.XXXXXXXX, marked and owned
  {"op": "sweep", "path": P}                     remove marked run dirs killed runs left in P
  {"op": "dropcaches"}                           sync + /proc/sys/vm/drop_caches = 3 (root only)
  {"op": "step", "id": S, "workers": [...], "release_at": T|null, "stall_seconds": X,
   "timeout": Y, "interval": Z}            step_done's "wall": this host's real-time clock
                                                 − its monotonic clock (a tool's wall-clock stamps);
                                                 "late": how late the release ran against release_at
  {"op": "exit"}
Worker specs: {"kind": "exec", "argv": [...], "cwd": D} or
              {"kind": "randread", "files": [...], "seconds": T, "block": B,
               "once": true (each file at most once, in order), "method": "dd" (one dd per file)}
  and in any spec "progress": "rchar"|"wchar": the counter that is this worker's payload.

Every worker leaves the same barrier: when ptrace works, each is stopped before the release
(a program inside its first system call, the loader's, after exec; an in-process worker before
its loop) and resumed by it; each start is taken at its first system call after the release.
Without ptrace all of them wait on the pipe. Each worker's I/O counters (/proc/PID/io,
summed over the processes it started) are sampled every interval and at each worker's exit:
the step reports them per worker as its progress curve.

Map of this file (one uploaded file by design: each part is a "# ---- name" section below,
in this order):
  state            the agent's globals: owned directories, live workers, the tag, the watchdog pipe
  start barrier    ptrace parking (parking_works), real-time priority for the release (boost)
  writeback        is written data still being flushed (dirty_pages, mounts, Writeback): not a stall
  plumbing         reading fds, exit codes, JSON events out (emit), owned paths, kill_children
  worker processes the tag every worker's descendants inherit, kill_tagged, pidfd signalling
  orphans          a dead agent's tagged processes (kill_orphans), the watchdog, cancel_and_exit
  leftovers        a dead agent's /tmp directories (markers, sweep, make_tempdir), I/O counters
  the worker side  in the forked child: worker_main, the dd and randread workers
  the parent side  releasing a step's workers and collecting their starts, progress and ends
                   (Progress, release, collect_starts, run_step)
  the command loop main: hello, clock, mkdir, rmtree, tempdir, sweep, dropcaches, step, exit
"""

import ctypes
import json
import os
import random
import re
import select
import shutil
import signal
import stat
import struct
import sys
import tempfile
import threading
import time

# ---- state ----------------------------------------------------------------------------

VERSION = 1
OUTPUT_LIMIT = 256 * 1024
owned = []          # directories this agent created
children = set()    # pids of live worker process groups
out_lock = threading.Lock()
TAG_NAME = "BRICKYARD_AGENT_TAG"
TAG = ""                     # in every worker's environment (see "worker processes"; set below)
WATCHDOG_FD = -1             # the write end of the watchdog's pipe (closed in workers)
WATCHDOG_ALIVE = -1          # end-of-file on this: the watchdog is gone


# ---- start barrier: a worker parked before the release, the release at real-time priority --

PTRACE_TRACEME, PTRACE_DETACH, PTRACE_SYSCALL = 0, 17, 24
_libc = None


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.ptrace.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        _libc.ptrace.restype = ctypes.c_long
    return _libc


def parking_works():
    """Can a child stop right after exec (PTRACE_TRACEME) so the program is loaded before
    the release? Then exec cost stays out of the start skew. Probed once per agent."""
    true = shutil.which("true")
    if not true or not sys.platform.startswith("linux"):
        return False
    try:
        libc()
    except OSError:
        return False
    pid = os.fork()
    if pid == 0:
        try:
            if libc().ptrace(PTRACE_TRACEME, 0, None, None) != 0:
                os._exit(124)
            os.execv(true, [true])
        finally:
            os._exit(125)
    _, status = os.waitpid(pid, 0)
    if not os.WIFSTOPPED(status):
        return False
    libc().ptrace(PTRACE_DETACH, pid, None, None)
    os.waitpid(pid, 0)
    return True


PARKING = None


def boost(on):
    """Real-time priority for the release and the collection of starts (root only), one
    above the kicked workers': a worker's stop is noted the moment it happens, not when a
    worker that runs on gives the CPU back."""
    try:
        if on:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(2))
        else:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        return True
    except (OSError, AttributeError):
        return False


# ---- writeback: is the data the workers wrote still being flushed -----------------------

def dirty_pages():
    """Dirty + Writeback kB from /proc/meminfo (the whole host)."""
    try:
        with open("/proc/meminfo") as fh:
            vals = {}
            for line in fh:
                key, _, rest = line.partition(":")
                if key in ("Dirty", "Writeback"):
                    vals[key] = int(rest.split()[0])
        return vals.get("Dirty", 0) + vals.get("Writeback", 0)
    except (OSError, ValueError, IndexError):
        return None


# File systems whose writes never wait on the host's page-cache writeback: a FUSE mount
# (gluster's, without kernel-writeback-cache) sends each write() as a request, so a worker
# stuck there shows in its own counters; tmpfs has nothing to write back.
NO_WRITEBACK = ("fuse", "tmpfs", "ramfs", "devtmpfs")


def mounts():
    """{mount id: (major, minor, fs type)} from /proc/self/mountinfo."""
    found = {}
    try:
        with open("/proc/self/mountinfo") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields = left.split()
                major, _, minor = fields[2].partition(":")
                found[int(fields[0])] = (int(major), int(minor), right.split()[0])
    except (OSError, ValueError, IndexError):
        pass
    return found


def written_mounts(pid, skip_prefix):
    """Mount ids of the regular files the process has open for writing, read from
    /proc/PID/fdinfo alone: stat() on a file of a hung mount would hang the agent too."""
    ids = set()
    fd_dir = "/proc/%d/fd" % pid
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return ids
    for fd in fds:
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
            if not target.startswith("/") or target.startswith(("/dev/", skip_prefix)):
                continue                     # pipes, sockets, devices, the agent's own logs
            flags, mnt = 0, None
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as fh:
                for line in fh:
                    if line.startswith("flags:"):
                        flags = int(line.split()[1], 8)
                    elif line.startswith("mnt_id:"):
                        mnt = int(line.split()[1])
            if mnt is not None and flags & (os.O_WRONLY | os.O_RDWR):
                ids.add(mnt)
        except (OSError, ValueError, IndexError):
            continue
    return ids


class Writeback(object):
    """Is the data the workers wrote still being flushed? A worker in fdatasync moves no
    counter of its own while the kernel writes its pages back, so without this a long
    flush would look like a stall. Counted per mount the workers write to: sectors
    written on its block device (/sys/dev/block/M:m/stat); for other file systems with
    writeback (NFS, overlay, …) the host's Dirty+Writeback falling, the best there is;
    never for FUSE or tmpfs. The host-wide figure is not used for block devices because
    other processes' writeback would hide a real pause."""

    def __init__(self, skip_prefix):
        # /proc/PID/fd links are resolved paths: compare with the resolved scratch folder
        self.skip_prefix = os.path.join(os.path.realpath(skip_prefix), "")
        self.mounts = {}
        self.last = None

    def _signal(self, mount_ids):
        sectors, host_wide = 0, False
        if not mount_ids <= set(self.mounts):
            self.mounts = mounts()
        for mnt in mount_ids:
            major, minor, fstype = self.mounts.get(mnt, (0, 0, ""))
            if major:
                try:
                    with open("/sys/dev/block/%d:%d/stat" % (major, minor)) as fh:
                        sectors += int(fh.read().split()[6])
                    continue
                except (OSError, ValueError, IndexError):
                    pass
            if fstype and not fstype.startswith(NO_WRITEBACK):
                host_wide = True
        return sectors, (dirty_pages() if host_wide else None)

    def progressed(self, writing_pids):
        """True when the devices the given workers write to flushed something since the
        last call."""
        ids = set()
        for pid in writing_pids:
            ids |= written_mounts(pid, self.skip_prefix)
        now = self._signal(ids) if ids else None
        last, self.last = self.last, now
        if now is None or last is None:
            return False
        sectors, dirty = now
        if sectors > last[0]:
            return True
        return dirty is not None and last[1] is not None and dirty < last[1]


# ---- plumbing -------------------------------------------------------------------------

def read_all(fd):
    """Everything ``fd`` gives until end-of-file."""
    chunks = []
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def exit_code(status):
    """os.waitstatus_to_exitcode for Pythons before 3.9 (RHEL 8 ships 3.6)."""
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


def emit(obj):
    line = json.dumps(obj, separators=(",", ":")) + "\n"
    with out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def is_owned(path):
    real = os.path.realpath(path)
    return any(real == d or real.startswith(d + os.sep) for d in owned)


def kill_children():
    for pid in list(children):
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    kill_tagged()               # and what left the workers' groups (fio's job processes)


# ---- worker processes: everything a worker started dies with the agent -------------------
# PR_SET_PDEATHSIG kills a worker when the agent dies, but not what the worker started: fio's
# job processes (each calls setsid), a shell's children, a daemon that forked twice. Neither a
# process group nor a session holds them, and the process tree breaks when a parent dies. So
# the agent tags each worker's environment (TAG, 128 random bits per agent: no other process
# has it), every descendant inherits it, and kill_tagged finds them wherever they ended up.
# The watchdog (a session of its own, so a kill of the agent's process group spares it) holds
# the read end of a pipe only the agent writes to: when it reads end-of-file the agent is gone,
# however it ended, and it kills every tagged process, then exits. An agent that ends cleanly
# kills its tagged processes itself and sends the watchdog away first. No cgroup or systemd.
#
# What kill_tagged may kill, as root too (it reads every process's environment there):
#   - only a process whose environment holds exactly BRICKYARD_AGENT_TAG=<this agent's tag>;
#   - only one started after the agent (a process that predates it cannot be its worker's,
#     and the environment of the host's long-running processes is never even read);
#   - never the agent, the watchdog (neither carries the tag) or pid 1;
#   - the signal goes to the very process whose environment was read: its /proc/PID directory
#     is opened first and the environment read through it, and pidfd_send_signal (Linux 5.1+)
#     signals that directory's process, never a later one that got its pid. On older kernels
#     the start time is read through the same directory just before os.kill: a pid would have
#     to be freed and reused within those microseconds.

PIDFD_SEND_SIGNAL = 424     # the same number on every architecture that has the generic table
PIDFD_ARCHES = ("x86_64", "i386", "i486", "i586", "i686", "aarch64", "arm", "ppc", "s390x", "riscv")


def start_time(proc_dir):
    """Start time (clock ticks since boot) of the process whose /proc directory is open as
    ``proc_dir``; None when it is gone or a zombie."""
    try:
        fd = os.open("stat", os.O_RDONLY, dir_fd=proc_dir)
        try:
            text = os.read(fd, 4096).decode(errors="replace")
        finally:
            os.close(fd)
        fields = text[text.rfind(")") + 2:].split()
        return int(fields[19]) if len(fields) > 19 and fields[0] not in ("Z", "X") else None
    except (OSError, ValueError):
        return None


def own_start():
    try:
        fd = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return 0
    try:
        return start_time(fd) or 0
    finally:
        os.close(fd)


AGENT_START = own_start()   # kill_tagged never kills a process older than its agent


def pid_namespace(path="/proc/self/ns/pid"):
    """The PID namespace's inode ('4026531836'), '' when it cannot be read."""
    try:
        return os.readlink(path).partition("[")[2].rstrip("]")
    except OSError:
        return ""


PIDNS = pid_namespace()
# the tag: 128 random bits (no other process has them), then who set it: this agent's pid,
# start time and PID namespace, so the next agent on the host can tell a dead agent's tag
TAG = "%s.%d.%d.%s" % (os.urandom(16).hex(), os.getpid(), AGENT_START, PIDNS)


def send_kill(dirfd, pid, start):
    """SIGKILL the process whose /proc directory ``dirfd`` is (see above). True if sent."""
    if os.uname()[4].startswith(PIDFD_ARCHES):
        try:
            if hasattr(signal, "pidfd_send_signal"):
                signal.pidfd_send_signal(dirfd, signal.SIGKILL)
                return True
            if libc().syscall(PIDFD_SEND_SIGNAL, dirfd, int(signal.SIGKILL), None, 0) == 0:
                return True
            err = ctypes.get_errno()
            if err != 38:                                       # ENOSYS: an older kernel
                return False                                    # ESRCH: it is gone already
        except OSError as exc:
            if exc.errno != 38:
                return False
        except (AttributeError, TypeError):
            pass
    if start_time(dirfd) != start:
        return False
    try:
        os.kill(pid, signal.SIGKILL)
        return True
    except OSError:
        return False


def tagged(tag, since, skip=()):
    """The live processes (this user's, or any as root) started at or after ``since`` whose
    environment holds exactly ``tag``, not in ``skip``: [(pid, open /proc/PID fd, start)]."""
    needle = ("\0%s=%s\0" % (TAG_NAME, tag)).encode()
    me = os.getpid()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid in (me, 1, AGENT_PID):
            continue
        try:
            dirfd = os.open("/proc/" + name, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        keep = False
        try:
            start = start_time(dirfd)
            if start is None or start < since or (pid, start) in skip:
                continue
            fd = os.open("environ", os.O_RDONLY, dir_fd=dirfd)
            try:
                env = read_all(fd)
            finally:
                os.close(fd)
            if needle in b"\0" + env + b"\0":
                found.append((pid, dirfd, start))
                keep = True
        except OSError:                 # gone, or not ours to read
            continue
        finally:
            if not keep:
                os.close(dirfd)
    return found


def kill_tagged(tag=None, since=None, rounds=20):
    """SIGKILL every process tagged ``tag`` (this agent's) started since ``since`` (the
    agent's start), then look again for any a killed one forked just before its signal;
    done when a look finds none new. Returns how many were killed."""
    tag = TAG if tag is None else tag
    since = AGENT_START if since is None else since
    killed = set()
    for _ in range(rounds):
        new = tagged(tag, since, skip=killed)
        if not new:
            break
        for pid, dirfd, start in new:
            try:
                if send_kill(dirfd, pid, start):
                    killed.add((pid, start))
            finally:
                os.close(dirfd)
        time.sleep(0.01)
    return len(killed)


# ---- orphans: what a dead agent's workers left running -----------------------------------
# An agent killed together with its watchdog (kill -9 of every agent.py on a host) leaves its
# workers' processes running: fio's job processes go on writing into a run directory Brickyard
# has removed. At start an agent looks for processes carrying a tag whose agent is certainly
# gone and kills them (kill_tagged, with that tag). A tag is judged a dead agent's only when
#   - it is well-formed (random part, pid, start time, PID namespace) and not this agent's;
#   - the tagged process and the agent named in the tag are in this agent's PID namespace
#     (a pid from another namespace means nothing here: such a process is never touched);
#   - no process with that pid and that start time lives in this namespace.
# Only processes this user may read are seen (all of them as root: the scan reads each one's
# environment, as ps e does, and keeps nothing but a tag). The agent says what it killed, and
# for which run (the run directory in the killed processes' working directory), in "hello".

TAG_VALUE = re.compile(r"^[0-9a-f]{32}\.(\d+)\.(\d+)\.(\d+)$")
RUN_IN_PATH = re.compile(r"/brickyard-([0-9a-f]{12})-[^/]*")


def tag_of(env):
    """The value of BRICKYARD_AGENT_TAG in a /proc/PID/environ blob, or ''."""
    key = ("%s=" % TAG_NAME).encode()
    for item in env.split(b"\0"):
        if item.startswith(key):
            return item[len(key):].decode("ascii", "replace")
    return ""


def agent_alive(pid, start):
    fields = proc_stat(pid)
    return len(fields) > 19 and fields[0] not in ("Z", "X") and fields[19] == str(start)


def dead_agents_tags():
    """{tag: (its agent's pid, that agent's start, [working directories of its processes])}
    for every tag a process here carries whose agent is certainly gone (see above)."""
    me, found = os.getpid(), {}
    if not PIDNS:
        return found
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (me, 1, AGENT_PID):
            continue
        try:
            dirfd = os.open("/proc/" + name, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fd = os.open("environ", os.O_RDONLY, dir_fd=dirfd)
            try:
                value = tag_of(read_all(fd))
            finally:
                os.close(fd)
            m = TAG_VALUE.match(value)
            if not m or value == TAG or m.group(3) != PIDNS:
                continue
            if os.readlink("ns/pid", dir_fd=dirfd).partition("[")[2].rstrip("]") != PIDNS:
                continue                # a process of another PID namespace: never judged here
            agent_pid, agent_start = int(m.group(1)), int(m.group(2))
            if agent_alive(agent_pid, agent_start):
                continue
            try:
                cwd = os.readlink("cwd", dir_fd=dirfd)
            except OSError:
                cwd = ""
            found.setdefault(value, (agent_pid, agent_start, []))[2].append(cwd)
        except OSError:                 # gone, or not ours to read
            continue
        finally:
            os.close(dirfd)
    return found


def kill_orphans():
    """Kill what dead agents' workers left running; returns what was done, per dead agent:
    {"agent_pid", "killed", "runs" (12-digit run ids from their working directories), "dirs"}."""
    done = []
    for tag, (agent_pid, agent_start, cwds) in sorted(dead_agents_tags().items()):
        killed = kill_tagged(tag, since=agent_start)
        if not killed:
            continue
        runs = sorted({m.group(1) for cwd in cwds for m in [RUN_IN_PATH.search(cwd)] if m})
        dirs = sorted({cwd.replace(" (deleted)", "") for cwd in cwds if cwd})[:5]
        done.append({"agent_pid": agent_pid, "killed": killed, "runs": runs, "dirs": dirs})
    return done


def watchdog(read_fd):
    """The watchdog's life: wait until the agent is gone (end-of-file on its pipe), then kill
    every process its workers started. An agent that ends cleanly says so first ("q")."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGPIPE, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)   # a signal for the agent's group is not for it
    try:
        libc().prctl(15, b"by-agent-watch", 0, 0, 0)   # PR_SET_NAME: ps -o comm tells it apart
    except (OSError, AttributeError):
        pass
    while True:
        try:
            data = os.read(read_fd, 64)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            break
        if b"q" in data:
            return
    kill_tagged()


def start_watchdog():
    """Start the watchdog (see above). Returns (the write end of its pipe, the read end of one
    that ends when the watchdog does), or (-1, -1) when it cannot run. Both ends are
    close-on-exec and every worker closes them: only the agent keeps the watchdog waiting."""
    from_agent, to_dog = os.pipe()
    alive_r, alive_w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (to_dog, from_agent, alive_r, alive_w):
            os.close(fd)
        return -1, -1
    if pid == 0:
        try:
            os.setsid()
            os.chdir("/")                    # it pins no mount
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):             # never hold the agent's stdin/stdout: its channel must close
                os.dup2(null, fd)
            keep = sorted({0, 1, 2, from_agent, alive_w})
            for low, high in zip(keep, keep[1:] + [65536]):
                os.closerange(low + 1, high)
            if os.fork() == 0:               # a grandchild: never in the agent's waitpid(-1)
                watchdog(from_agent)
        finally:
            os._exit(0)
    os.close(from_agent)
    os.close(alive_w)
    os.waitpid(pid, 0)
    return to_dog, alive_r


def stop_watchdog(timeout=2.0):
    """The agent ends cleanly, its tagged processes killed: the watchdog leaves at once, and
    the agent waits for that (nothing of it is left when the agent's command ends)."""
    global WATCHDOG_FD
    if WATCHDOG_FD < 0:
        return
    try:
        os.write(WATCHDOG_FD, b"q")
        os.close(WATCHDOG_FD)
    except OSError:
        return
    finally:
        WATCHDOG_FD = -1
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([WATCHDOG_ALIVE], [], [], max(0.0, end - time.monotonic()))
        if ready and not os.read(WATCHDOG_ALIVE, 64):
            return


def remove_owned():
    """Remove every directory this agent made; returns those still there afterwards."""
    left = []
    for d in list(owned):
        stop_servers(d)
        shutil.rmtree(d, ignore_errors=True)
        owned.remove(d)
        if os.path.lexists(d):
            left.append(d)
    return left


def cancel_and_exit(reason):
    kill_children()
    left = remove_owned()
    if SCRATCH and is_marked(SCRATCH):      # its own directory too: nobody may be left to remove it
        shutil.rmtree(SCRATCH, ignore_errors=True)
    stop_watchdog()
    emit({"event": "cancelled", "reason": reason, "left": left})
    os._exit(3)


# ---- leftovers: what a dead agent left in /tmp ------------------------------------------
# Every directory an agent makes in /tmp (its own /tmp/brickyard-agent.*, and the "tempdir"
# op's, e.g. /tmp/brickyard-pg.* for pgbench) holds MARKER: who made it (pid, that pid's
# start time, the boot, the PID namespace). A new agent removes such a directory only when
# its maker is certainly gone (a killed run, a crashed host); a directory without a marker
# of this user's, or whose maker lives or cannot be seen (another PID namespace), is left.

TMP = "/tmp"         # where this agent's own directory is (Brickyard makes it in /tmp; tests elsewhere)
MARKER = ".brickyard-owner"
SCRATCH = ""
AGENT_PID = os.getpid()


def read_text(path):
    try:
        with open(path) as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return ""


def proc_stat(pid):
    """Fields of /proc/PID/stat after the command name: [0] state, [19] start time."""
    text = read_text("/proc/%d/stat" % pid)
    return text[text.rfind(")") + 2:].split()


def identity():
    pid = os.getpid()
    try:
        pidns = os.readlink("/proc/self/ns/pid")
    except OSError:
        pidns = ""
    fields = proc_stat(pid)
    machine = read_text("/etc/machine-id").strip() or os.uname()[1]
    return {"pid": pid, "start": fields[19] if len(fields) > 19 else "", "machine": machine,
            "boot": read_text("/proc/sys/kernel/random/boot_id").strip(), "pidns": pidns}


def write_marker(directory):
    fd = os.open(os.path.join(directory, MARKER), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as fh:
        json.dump(identity(), fh)


def marker_of(directory):
    """The maker recorded in ``directory`` (a dict), or None when it holds no marker of ours."""
    path = os.path.join(directory, MARKER)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size > 4096:
            return None
        marker = json.loads(read_text(path))
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def is_marked(directory):
    return marker_of(directory) is not None


def maker_gone(marker, me):
    """True only when the agent that wrote ``marker`` is certainly not running any more."""
    if not marker.get("boot") or not me["boot"] or marker.get("machine") != me["machine"]:
        return False                         # another host's (a shared volume): not ours to judge
    if marker["boot"] != me["boot"]:
        return True                          # the host rebooted since
    if marker.get("pidns") != me["pidns"]:
        return False                         # its processes cannot be seen from here
    pid = marker.get("pid")
    if not isinstance(pid, int) or pid <= 0 or pid == me["pid"]:
        return False
    fields = proc_stat(pid)
    if len(fields) <= 19 or fields[0] in ("Z", "X"):
        return True                          # no such process, or a dead one not yet reaped
    return fields[19] != str(marker.get("start"))   # the pid now names another process


def stop_servers(directory):
    """A PostgreSQL server (pgbench's) listening in ``directory``: its socket lock file names
    its pid, and its command line names the directory. Stop it at once (SIGQUIT: the data
    is throwaway) before the directory goes. Returns what was stopped."""
    stopped = []
    try:
        names = os.listdir(directory)
    except OSError:
        return stopped
    for name in names:
        if not (name.startswith(".s.PGSQL.") and name.endswith(".lock")):
            continue
        try:
            pid = int(read_text(os.path.join(directory, name)).splitlines()[0])
        except (ValueError, IndexError):
            continue
        cmdline = read_text("/proc/%d/cmdline" % pid).split("\0") if pid > 1 else []
        if not cmdline or not os.path.basename(cmdline[0]).startswith("postgres") or \
                not any(arg.startswith(directory) for arg in cmdline[1:]):
            continue
        try:
            os.kill(pid, signal.SIGQUIT)
        except OSError:
            continue
        for _ in range(50):
            fields = proc_stat(pid)
            if not fields or fields[0] in ("Z", "X"):
                break
            time.sleep(0.1)
        stopped.append("PostgreSQL server %d" % pid)
    return stopped


TMP_DIR = re.compile(r"^brickyard-")
RUN_DIR = re.compile(r"^brickyard-[0-9a-f]{12}-")      # brickyard-<run id>-<host>, in a target


def sweep(parent, pattern, keep=()):
    """Remove the directories in ``parent`` named like ``pattern`` whose marker says their
    maker is certainly gone (see above), stopping a server left listening in one first.
    Returns what was done, in words."""
    me = identity()
    done = []
    for name in sorted(os.listdir(parent)):
        path = os.path.join(parent, name)
        if not pattern.match(name) or path in keep:
            continue
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                continue
        except OSError:
            continue
        marker = marker_of(path)
        if marker is None or not maker_gone(marker, me):
            continue
        stopped = stop_servers(path)
        shutil.rmtree(path, ignore_errors=True)
        what = path + (" (stopped %s)" % ", ".join(stopped) if stopped else "")
        done.append(what + (": could not remove all of it" if os.path.lexists(path) else ""))
    return done


def make_tempdir(kind):
    """/tmp/brickyard-KIND.XXXXXXXX (0700, marked, owned: removed on exit and cancel)."""
    if not kind or len(kind) > 16 or any(c not in "abcdefghijklmnopqrstuvwxyz0123456789" for c in kind):
        raise ValueError("tempdir kind %r: lower-case letters and digits only" % kind)
    path = tempfile.mkdtemp(prefix="brickyard-%s." % kind, dir=TMP)
    write_marker(path)
    owned.append(path)
    return path


def io_counters(pid):
    """(rchar, wchar) of one process (a zombie's too, until it is reaped); None if gone."""
    try:
        with open("/proc/%d/io" % pid) as fh:
            vals = dict(line.split(": ") for line in fh.read().splitlines())
        return int(vals.get("rchar", 0)), int(vals.get("wchar", 0))
    except (OSError, ValueError):
        return None


def descendants(pid):
    """Live descendants of ``pid`` (/proc/PID/task/TID/children, every thread's own)."""
    found, todo = [], [pid]
    while todo:
        cur = todo.pop()
        try:
            tids = os.listdir("/proc/%d/task" % cur)
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/children" % (cur, tid)) as fh:
                    kids = [int(k) for k in fh.read().split()]
            except (OSError, ValueError):
                continue
            found += kids
            todo += kids
    return found


def group_counters(pid):
    """(rchar, wchar) of a worker and everything it started (fio's job processes, the dd a
    reader forks per file). A live child's counters are its own until its parent reaps it,
    then they are added to the parent's: read the parent first, so a child reaped between
    the two reads is missed once (a momentary dip) rather than counted twice."""
    own = io_counters(pid)
    if own is None:
        return None
    r, w = own
    for kid in descendants(pid):
        c = io_counters(kid)
        if c is not None:
            r, w = r + c[0], w + c[1]
    return r, w


# ---- the worker side (runs in the forked child) ----------------------------------------

def die_with_agent(agent_pid):
    """SIGKILL this worker when the agent dies (killed itself, nobody left to stop it)."""
    try:
        libc().prctl(1, signal.SIGKILL, 0, 0, 0)        # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != agent_pid:                         # it died before the line above
        os._exit(125)


def worker_main(spec, barrier_r, status_w, out_path, err_path):
    os.setsid()
    die_with_agent(AGENT_PID)
    for fd in (WATCHDOG_FD, WATCHDOG_ALIVE):
        if fd >= 0:
            os.close(fd)                      # only the agent may keep the watchdog waiting
    os.environ[TAG_NAME] = TAG                # inherited by all it starts: see "worker processes"
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 1)
    os.dup2(os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    if spec.get("cwd"):
        os.chdir(spec["cwd"])
    kind = spec.get("kind", "exec")
    os.write(status_w, b"R")                  # ready
    if spec.get("_park"):
        # stopped until the parent releases it: a program right after exec (loaded, not yet
        # run), an in-process worker here; every kind leaves the same barrier the same way
        if libc().ptrace(PTRACE_TRACEME, 0, None, None) != 0:
            os._exit(124)
        if kind == "exec":
            try:
                os.execv(spec["_path"], spec["argv"])
            except OSError as exc:
                os.write(2, ("cannot run %s: %s\n" % (spec["argv"][0], exc.strerror)).encode())
                os._exit(127)
        os.kill(os.getpid(), signal.SIGSTOP)
    else:
        os.read(barrier_r, 1)                 # blocks until the parent closes the write end
    if spec.get("delay"):                     # deliberate stagger (tests of the aggregates)
        time.sleep(float(spec["delay"]))
    start = time.monotonic()
    os.write(status_w, b"S" + struct.pack("d", start))
    if kind == "exec":
        try:
            os.execvp(spec["argv"][0], spec["argv"])
        except OSError as exc:
            os.write(2, ("cannot run %s: %s\n" % (spec["argv"][0], exc.strerror)).encode())
            os._exit(127)
    elif kind == "sleep":
        time.sleep(float(spec.get("seconds", 0)))
        os.write(status_w, b"J" + json.dumps({"end": time.monotonic()}).encode())
        os._exit(0)
    elif kind == "randread":
        try:
            result = randread(spec)
        except Exception as exc:  # a vanished file, a dead mount: the worker fails, visibly
            os.write(2, ("randread: %s\n" % exc).encode(errors="replace"))
            os._exit(1)
        os.write(status_w, b"J" + json.dumps(result).encode())
        os._exit(0)
    os._exit(126)


DD_BYTES = re.compile(r"^(\d+) bytes", re.MULTILINE)


def dd_file(dd, path, block):
    """Read one file with a dd process forked for it (the mailing-list post's method);
    the bytes dd says it copied."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.dup2(w, 2)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            env = dict(os.environ, LC_ALL="C")
            os.execve(dd, [dd, "if=" + path, "of=/dev/null", "bs=%d" % block], env)
        finally:
            os._exit(127)
    os.close(w)
    out = read_all(r)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    if exit_code(status) != 0:
        raise OSError("dd if=%s exited %d: %s" % (path, exit_code(status), text.strip()[-200:]))
    found = DD_BYTES.findall(text)
    return int(found[-1]) if found else 0


def randread(spec):
    """Read whole files until time is up. ``once``: the files in the given order, each at
    most once (no re-reads: a re-read may come from a cache); otherwise random picks."""
    files = spec["files"]
    block = int(spec.get("block", 1 << 20))
    deadline = time.monotonic() + float(spec["seconds"])
    once = bool(spec.get("once"))
    dd = spec.get("_dd")
    rng = random.Random(spec.get("seed"))
    nbytes = ops = 0
    buf = bytearray(block)
    view = memoryview(buf)
    i = 0
    while time.monotonic() < deadline:
        if once:
            if i >= len(files):
                break
            path = files[i]
            i += 1
        else:
            path = files[rng.randrange(len(files))]
        if dd:
            nbytes += dd_file(dd, path, block)
        else:
            fd = os.open(path, os.O_RDONLY)
            try:
                while True:
                    n = os.readv(fd, [view])
                    if not n:
                        break
                    nbytes += n
            finally:
                os.close(fd)
        ops += 1
    end = time.monotonic()
    return {"bytes": nbytes, "ops": ops, "end": end, "exhausted": once and i >= len(files) and end < deadline}


# ---- the parent side --------------------------------------------------------------------

def read_status(fd):
    data = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    os.close(fd)
    info = {}
    if b"S" in data[:2]:
        i = data.index(b"S")
        info["start"] = struct.unpack("d", data[i + 1:i + 9])[0]
        rest = data[i + 9:]
        if rest.startswith(b"J"):
            try:
                info["result"] = json.loads(rest[1:].decode())
            except ValueError:
                pass
    return info


def tail(path):
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - OUTPUT_LIMIT))
            return fh.read().decode(errors="replace")
    except OSError:
        return ""


MAX_SAMPLES = 400                 # per worker; older periodic samples are thinned beyond this
COUNTERS = {"rchar": 0, "wchar": 1}


class Progress(object):
    """Every worker's I/O counters (its own and its descendants'), since the release, taken
    every interval and at each worker's exit. The samples of the counter a worker names as
    its payload (``progress``: rchar for readers, wchar for writers) are its progress curve:
    what the first-finisher ("stonewall") figure and the live throughput are made of."""

    def __init__(self, procs, specs):
        self.procs = procs
        self.counter = [COUNTERS.get(s.get("progress")) for s in specs]
        self.lock = threading.Lock()

    def baseline(self, released):
        for p, k in zip(self.procs, self.counter):
            p["base"] = (group_counters(p["pid"]) or (0, 0)) if not p.get("gone") else (0, 0)
            p["io"] = (0, 0)
            p["samples"] = [[released, 0, 1]] if k is not None else []

    def started(self, released):
        """The release instant is where every progress curve begins."""
        for p in self.procs:
            if p["samples"]:
                p["samples"][0][0] = released

    def take(self, now, finish=False):
        """Sample every worker not yet reaped; True if any counter moved."""
        with self.lock:
            return self._take(now, finish)[0]

    def _take(self, now, finish):
        moved, read = False, set()
        for p, k in zip(self.procs, self.counter):
            if p.get("gone"):
                continue
            c = group_counters(p["pid"])
            if c is None:
                continue
            read.add(p["pid"])
            moved = self._add(p, k, now, c, finish) or moved
        return moved, read

    @staticmethod
    def _add(p, k, now, counters, finish):
        r, w = max(0, counters[0] - p["base"][0]), max(0, counters[1] - p["base"][1])
        io = (max(r, p["io"][0]), max(w, p["io"][1]))   # a reaped child's dip, ignored
        moved = io != p["io"]
        p["io"] = io
        if k is not None:
            samples = p["samples"]
            samples.append([now, io[k], 1 if finish else 0])
            if len(samples) > MAX_SAMPLES:
                last = len(samples) - 1
                p["samples"] = [s for i, s in enumerate(samples) if s[2] or i % 2 == 0 or i == last]
        return moved

    def payload(self):
        """Bytes all workers that name a payload counter have moved so far (None: none do)."""
        vals = [p["io"][k] for p, k in zip(self.procs, self.counter) if k is not None]
        return sum(vals) if vals else None

    def exited(self, p):
        """A worker exited (a zombie, not yet reaped): sample everyone at this instant, then
        reap it. Its final counters come from the zombie; where a zombie's counters are closed
        to us (not root), from what reaping it adds to this agent's own (a reaped child's
        counters are added to its parent's). Reaps run one at a time under the lock, so no
        other reap lands between the two reads. Returns (instant, wait status)."""
        now = time.monotonic()
        with self.lock:
            _, read = self._take(now, True)
            before = io_counters(os.getpid()) if p["pid"] not in read else None
            _, status = os.waitpid(p["pid"], 0)
            after = io_counters(os.getpid()) if before is not None else None
            p["gone"] = True          # after the reap its pid may belong to someone else
            if before is not None and after is not None:
                k = self.counter[self.procs.index(p)]
                self._add(p, k, now, (after[0] - before[0], after[1] - before[1]), True)
        return now, status


def prepare_specs(specs):
    """Mark which workers park (ptrace) and look up the programs they need."""
    dd = None
    for spec in specs:
        kind = spec.get("kind", "exec")
        if kind == "exec":
            path = shutil.which(spec["argv"][0])
            if PARKING and path and not spec.get("delay"):
                spec["_park"], spec["_path"] = True, path
        elif PARKING:
            spec["_park"] = True
        if kind == "randread" and spec.get("method") == "dd":
            dd = dd or shutil.which("dd")
            if not dd:
                raise ValueError("randread with one dd per file: dd is not installed on this host")
            spec["_dd"] = dd


def kick(pid, on):
    """A parked worker at real-time priority until its first system call (root only): so a busy
    host's other processes do not hold its first instructions back; never inherited."""
    try:
        if on:
            os.sched_setscheduler(pid, os.SCHED_FIFO | getattr(os, "SCHED_RESET_ON_FORK", 0), os.sched_param(1))
        else:
            os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
        return True
    except (OSError, AttributeError):
        return False


def first_call(p):
    """Run a parked worker on to the entry of its next system call, where it stays parked: a
    program right after exec to the loader's first call, an in-process worker from its stop
    to the call that reports it ready to work. What runs before that call is loading (the
    loader's code; a forked worker's copy-on-write faults), not the worker's work: done before
    the release, it is in no worker's start, and after the release each worker needs only
    that one call to show it runs. Without this, each of 8 programs ran ~25 µs of loader
    code after the release, one after another on 2 cores, and that queue was most of the
    measured start skew."""
    if libc().ptrace(PTRACE_SYSCALL, p["pid"], None, None) != 0:
        return
    _, status = os.waitpid(p["pid"], 0)
    if not os.WIFSTOPPED(status):
        p["parked"] = False
        p["end"], p["exit"], p["gone"] = time.monotonic(), exit_code(status), True
    elif os.WSTOPSIG(status) & 0x7f != signal.SIGTRAP:
        p["signal"] = os.WSTOPSIG(status) & 0x7f    # a signal came first: delivered at the release


def release(procs, specs):
    """Let every worker go at once; returns the release instant. Each parked worker runs to
    its first system call after the release (a program: out of the one it is parked in), where
    its start is taken: the same figure for a program (exec and loading stay out of it) and an
    in-process worker. With root, the release loop and each worker up to that first call run
    at real-time priority, so the start does not wait for the host's other work; without it, a
    worker that waits for a CPU starts when it really runs. A deliberately delayed worker
    reads its own clock. The loop does nothing but resume: one ptrace call per worker."""
    boosted = boost(True)
    pending = {}
    go, hold = [], []
    for p, spec in zip(procs, specs):
        if not p.get("parked"):
            continue
        if spec.get("delay"):
            hold.append(p)
            continue
        if boosted:
            p["kicked"] = kick(p["pid"], True)
        go.append((p["pid"], p.get("signal")))
        pending[p["pid"]] = p
    ptrace, resume = libc().ptrace, PTRACE_SYSCALL
    released = time.monotonic()
    failed = [pid for pid, sig in go if ptrace(resume, pid, None, sig) != 0]
    for pid in failed:                           # cannot follow it to its first call: let it go
        p = pending.pop(pid)
        p["start"] = time.monotonic()
        hold.append(p)
    for p in hold:
        if p.pop("kicked", False):
            kick(p["pid"], False)
        libc().ptrace(PTRACE_DETACH, p["pid"], None, None)
    return released, boosted, pending


def collect_starts(procs, pending, boosted):
    """Each released worker's start: the instant its first system call after the release
    stops it. The agent, one priority above the workers, notes it and lets the worker go."""
    by_pid = dict((p["pid"], p) for p in procs)
    ptrace, detach, trap = libc().ptrace, PTRACE_DETACH, signal.SIGTRAP
    try:
        while pending:                      # no reaper runs yet: every event here is ours
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            now = time.monotonic()
            p = by_pid.get(pid)
            if p is None:
                continue
            if os.WIFSTOPPED(status):
                if pid in pending:
                    sig = os.WSTOPSIG(status) & 0x7f
                    p["start"] = now
                    if p.pop("kicked", False):
                        kick(pid, False)
                    ptrace(detach, pid, None, None if sig == trap else sig)
                    del pending[pid]
            else:
                p["end"], p["exit"], p["gone"] = now, exit_code(status), True
                pending.pop(pid, None)
    finally:
        for p in procs:                     # never leave a worker at real-time priority
            if p.pop("kicked", False) and not p.get("gone"):
                kick(p["pid"], False)
        if boosted:
            boost(False)


def run_step(cmd, scratch):
    global PARKING
    sid = cmd["id"]
    specs = cmd["workers"]
    if PARKING is None:
        PARKING = parking_works()
    prepare_specs(specs)
    interval = float(cmd.get("interval", 0.5))
    stall_seconds = float(cmd.get("stall_seconds") or 0)
    timeout = float(cmd.get("timeout") or 0)
    barrier_r, barrier_w = os.pipe()
    procs = []
    for i, spec in enumerate(specs):
        status_r, status_w = os.pipe()
        out_path = os.path.join(scratch, "w%d.%s.out" % (i, sid))
        err_path = os.path.join(scratch, "w%d.%s.err" % (i, sid))
        pid = os.fork()
        if pid == 0:
            try:
                os.close(barrier_w)
                os.close(status_r)
                worker_main(spec, barrier_r, status_w, out_path, err_path)
            finally:
                os._exit(125)
        os.close(status_w)
        children.add(pid)
        procs.append({"pid": pid, "status": status_r, "out": out_path, "err": err_path,
                      "end": None, "exit": None, "io": (0, 0)})
    os.close(barrier_r)
    for p, spec in zip(procs, specs):         # wait until every worker is parked or waiting
        if os.read(p["status"], 1) != b"R":
            continue
        if spec.get("_park"):
            _, status = os.waitpid(p["pid"], 0)
            if os.WIFSTOPPED(status):
                p["parked"] = True
                if not spec.get("delay"):
                    first_call(p)
            else:                             # it could not park: it has already exited
                p["end"], p["exit"], p["gone"] = time.monotonic(), exit_code(status), True
    progress = Progress(procs, specs)
    progress.baseline(time.monotonic())       # nothing has run yet: every counter's zero
    release_at = cmd.get("release_at")
    if release_at is not None:                # read before the wait: it would make the release late
        while True:
            left = release_at - time.monotonic()
            if left <= 0:
                break
            time.sleep(left - 0.002 if left > 0.003 else 0)
    released, boosted, pending = release(procs, specs)
    progress.started(released)
    os.close(barrier_w)                       # workers waiting on the pipe wake now
    collect_starts(procs, pending, boosted)

    def reap(p):
        try:                                  # exited but not reaped: its counters still read
            os.waitid(os.P_PID, p["pid"], os.WEXITED | os.WNOWAIT)
            end, status = progress.exited(p)
        except (OSError, AttributeError):     # no waitid here: reap it plainly
            _, status = os.waitpid(p["pid"], 0)
            end = time.monotonic()
        p["exit"] = exit_code(status)
        p["gone"] = True
        p["end"] = end

    threads = [threading.Thread(target=reap, args=(p,), daemon=True) for p in procs if not p.get("gone")]
    for t in threads:
        t.start()
    emit({"event": "released", "id": sid, "t": released})
    stalled = timed_out = False
    last_any_progress = released
    max_idle = 0.0
    writeback = Writeback(scratch)
    done_before = 0
    while any(p["end"] is None for p in procs):
        ready, _, _ = select.select([sys.stdin], [], [], interval)
        if ready:
            line = sys.stdin.readline()
            if not line:
                cancel_and_exit("stdin closed")
            try:
                if json.loads(line).get("op") == "cancel":
                    cancel_and_exit("cancel requested")
            except ValueError:
                pass
        now = time.monotonic()
        if progress.take(now):
            last_any_progress = now
        total = sum(p["io"][0] + p["io"][1] for p in procs)   # finished workers keep their count
        done = sum(1 for p in procs if p["end"] is not None)
        # a running worker that has written since the release may be waiting on its flush
        writing = [p["pid"] for p in procs if p["end"] is None and p["io"][1] > 0]
        if done != done_before or writeback.progressed(writing):
            last_any_progress = now        # a worker finished, or the kernel is writing back its data
        done_before = done
        max_idle = max(max_idle, now - last_any_progress)
        emit({"event": "progress", "id": sid, "io_bytes": total, "payload": progress.payload(), "done": done,
              "workers": len(procs), "t": now})
        if stall_seconds and now - last_any_progress > stall_seconds:
            stalled = True
        if timeout and now - released > timeout:
            timed_out = True
        if stalled or timed_out:
            for p in procs:
                if p["end"] is None:
                    try:
                        os.killpg(p["pid"], signal.SIGKILL)
                    except OSError:
                        pass
            kill_tagged()                     # and what left their groups (fio's job processes)
            break
    for t in threads:
        t.join(0.5 if (stalled or timed_out) else None)
    # what the workers started and left running (a shell's "cmd &") would skew the next step
    strays = kill_tagged()
    results = []
    for i, (p, spec) in enumerate(zip(procs, specs)):
        info = read_status(p["status"]) if p["end"] is not None else {}
        children.discard(p["pid"])
        res = info.get("result") or {}
        results.append({
            "worker": i,
            "start": p.get("start", info.get("start")),
            "end": res.get("end", p["end"]),
            "exit": p["exit"],
            "rchar": p["io"][0],
            "wchar": p["io"][1],
            "bytes": res.get("bytes"),
            "ops": res.get("ops"),
            "exhausted": res.get("exhausted"),
            "progress": spec.get("progress") if spec.get("progress") in COUNTERS else None,
            "samples": [s[:2] for s in p.get("samples", [])] or None,
            "stdout": tail(p["out"]),
            "stderr": tail(p["err"]),
            "parked": bool(p.get("parked")),
        })
        for path in (p["out"], p["err"]):
            try:
                os.unlink(path)
            except OSError:
                pass
    emit({"event": "step_done", "id": sid, "released": released, "workers": results,
          "release": "ptrace" if any(p.get("parked") for p in procs) else "pipe",
          "stalled": stalled, "timed_out": timed_out,
          "idle_seconds": time.monotonic() - last_any_progress, "max_idle_seconds": max_idle,
          "strays_killed": strays, "wall": time.time() - time.monotonic(),
          "late": released - release_at if release_at is not None else None})


# ---- the command loop --------------------------------------------------------------------

def main():
    global SCRATCH, TMP, WATCHDOG_FD, WATCHDOG_ALIVE
    WATCHDOG_FD, WATCHDOG_ALIVE = start_watchdog()
    scratch = os.path.dirname(os.path.abspath(__file__))
    signal.signal(signal.SIGTERM, lambda *_: cancel_and_exit("SIGTERM"))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    swept = []
    if os.path.basename(scratch).startswith("brickyard-agent."):
        # the directory Brickyard made this agent's in (mktemp -d /tmp/brickyard-agent.X) is
        # where agents keep their directories: the one this agent sweeps and makes "tempdir"s in
        TMP = os.path.dirname(scratch)
        try:
            write_marker(scratch)
            SCRATCH = scratch
        except OSError:
            pass
        try:
            swept = sweep(TMP, TMP_DIR, keep=(scratch,))
        except OSError:
            pass
    try:
        orphans = kill_orphans()
    except OSError:
        orphans = []
    emit({"event": "hello", "version": VERSION, "pid": os.getpid(), "t": time.monotonic(),
          "euid": os.geteuid(), "python": sys.version.split()[0], "swept": swept, "orphans": orphans})
    while True:
        line = sys.stdin.readline()
        if not line:
            cancel_and_exit("stdin closed")
        line = line.strip()
        if not line:
            continue
        try:
            cmd = json.loads(line)
            op = cmd.get("op")
            if op == "clock":
                emit({"event": "clock", "id": cmd.get("id"), "t": time.monotonic(), "w": time.time()})
            elif op == "hello":
                emit({"event": "hello", "version": VERSION, "pid": os.getpid(), "t": time.monotonic()})
            elif op == "mkdir":
                path = os.path.realpath(cmd["path"])
                os.mkdir(path, 0o755)
                owned.append(path)
                write_marker(path)          # a later run on this host may remove it if we are killed
                emit({"event": "ok", "op": op, "path": path})
            elif op == "sweep":
                emit({"event": "ok", "op": op, "swept": sweep(os.path.realpath(cmd["path"]), RUN_DIR, keep=owned)})
            elif op == "rmtree":
                path = cmd["path"]
                if not is_owned(path):
                    raise ValueError("refusing to remove %s: this run did not create it" % path)
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                elif os.path.lexists(path):
                    os.unlink(path)
                real = os.path.realpath(path)
                if real in owned:
                    owned.remove(real)
                emit({"event": "ok", "op": op, "path": path})
            elif op == "dropcaches":
                os.sync()
                with open("/proc/sys/vm/drop_caches", "w") as fh:
                    fh.write("3\n")
                emit({"event": "ok", "op": op})
            elif op == "step":
                run_step(cmd, scratch)
            elif op == "tempdir":
                emit({"event": "ok", "op": op, "path": make_tempdir(str(cmd.get("kind", "")))})
            elif op == "exit":
                kill_tagged()
                left = remove_owned() if cmd.get("remove_owned") else []
                stop_watchdog()
                emit({"event": "bye", "left": left})
                return
            elif op == "cancel":
                cancel_and_exit("cancel requested")
            else:
                raise ValueError("unknown op %r" % op)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            emit({"event": "error", "op": locals().get("op"), "message": str(exc)})


if __name__ == "__main__":
    main()
