"""One rule for every file Brickyard writes: it is replaced whole or not at all.

``write_atomic`` writes a temporary file beside the target, fsyncs it, renames it over the
target and fsyncs the folder. A full disk, a killed process or a power cut leaves the file that
was there as it was (an earlier export, last week's report), never a truncated one. A link at
the target is replaced by the new file, never written through: Brickyard does not follow a link
it did not make into whatever file it points at. Streams are the exception: a path that is (or
links to) a terminal, a pipe or a device (``-o /dev/stdout``, ``/dev/null``) is written to as it
is, since there is no file to replace and replacing ``/dev/null`` would be a disaster.

``write_error_words`` says in one sentence why a write failed and that nothing was lost.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["write_atomic", "write_error_words"]


def write_atomic(path: str | os.PathLike, data: bytes | str, *, new_mode: int = 0o644,
                 keep_mode: bool = True) -> None:
    """Replace ``path`` by ``data`` (str is written as UTF-8) whole or not at all. An existing
    file keeps its permission bits (unless ``keep_mode`` is false); a new one gets ``new_mode``.
    Raises ``OSError`` (the target untouched, the temporary file removed)."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    if _is_stream(path):
        with open(path, "wb") as handle:
            handle.write(payload)
        return
    if path.is_dir() and not path.is_symlink():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    folder = path.parent if str(path.parent) else Path(".")
    import tempfile   # when writing: it brings shutil and random, 10 ms of every start otherwise

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            old = os.lstat(path)
        except FileNotFoundError:
            old = None
        keep = keep_mode and old is not None and stat.S_ISREG(old.st_mode)
        os.chmod(tmp, stat.S_IMODE(old.st_mode) if keep else new_mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def _is_stream(path: Path) -> bool:
    """A character or block device, a FIFO or a socket, directly or through links; or a name
    in /dev itself or /dev/fd or /proc (``/dev/stdout`` links to the caller's descriptor, which
    may be a regular file: that link must never be replaced)."""
    parts = Path(os.path.abspath(path)).parts
    if len(parts) > 2 and (parts[1] == "proc" or (parts[1] == "dev" and (len(parts) == 3 or parts[2] == "fd"))):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _fsync_folder(folder: Path) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def write_error_words(path: str | os.PathLike, exc: OSError) -> str:
    """Why a file could not be written, in one sentence for the user, and that nothing was
    lost: 'cannot write /x/r.pdf: the disk is full (No space left on device); nothing was
    written and the file already there is as it was'."""
    path = Path(path)
    folder = path.resolve().parent if str(path) else Path(".")
    why = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "your disk quota is used up",
        errno.EACCES: f"you may not write in {folder}",
        errno.EPERM: f"you may not write in {folder}",
        errno.EROFS: f"{folder} is on a read-only filesystem",
        errno.ENOENT: (f"no file can be made in {folder}" if folder.is_dir()      # /proc, a special folder
                       else f"the folder {folder} does not exist"),
        errno.ENOTDIR: f"{folder} is not a folder",
        errno.EISDIR: f"{path} is a folder",
        errno.ENAMETOOLONG: "the file name is too long",
        errno.EFBIG: "the file is larger than this filesystem or your limits allow",
    }.get(exc.errno or 0, "")
    reason = f"{why} ({exc.strerror})" if why and exc.strerror else why or exc.strerror or str(exc)
    kept = "the file already there is as it was" if path.exists() else "no file was left behind"
    return f"cannot write {path}: {reason}; nothing was written and {kept}"
