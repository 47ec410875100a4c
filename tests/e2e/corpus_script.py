#!/usr/bin/env python3
"""A test corpus written and checked on the client in one process (stdlib only).

    python3 corpus_script.py write ROOT SEED [small|many|full] -> prints the manifest (JSON) of what it wrote
    python3 corpus_script.py read ROOT                    -> prints the manifest of what is there now

The full corpus: 2,000+ regular files in 96 directories three levels deep, sizes from 0 bytes
to tens of MiB (most small, as real trees are), a few hard links (a second name for a file)
and symlinks (relative, to files and to a directory, one dangling). "many": as many files in
the same tree, nearly all of 0-4 KiB, five of 1-4 MiB and one of 16-24 MiB (~45 MB). The small one has the same
kinds of everything (a 12+ MiB file included) at a tenth of the files, 35 directories:
gluster migrates and heals file by file, so on a shared 2-core machine it is what fits CI. A manifest maps each path to
(kind, size, sha256, link target, hard-link group), so two manifests compare with ``==``.
It runs as one remote process because 2,000 round trips over SSH would take minutes.
"""

import hashlib
import json
import os
import random
import stat
import sys
from concurrent.futures import ThreadPoolExecutor

SIZES = {  # (count, smallest, largest) bytes
    "full": ((1200, 0, 4096), (640, 4096, 64 << 10), (140, 64 << 10, 1 << 20), (16, 1 << 20, 4 << 20),
             (2, 12 << 20, 24 << 20)),
    # the 2,000+ files as most trees hold them: nearly all tiny, a few MiB-size, one of tens of MiB
    "many": ((1850, 0, 4096), (144, 4096, 64 << 10), (5, 1 << 20, 4 << 20), (1, 16 << 20, 24 << 20)),
    "small": ((120, 0, 4096), (60, 4096, 64 << 10), (16, 64 << 10, 1 << 20), (3, 1 << 20, 4 << 20),
              (1, 12 << 20, 16 << 20)),
}
TREE = {"full": (12, 4, 2), "many": (12, 4, 2), "small": (7, 2, 1)}   # directories on each of the three levels


THREADS = 16   # files written and read at once: a FUSE client waits on the bricks for each file


def write(root, seed, size="full"):
    """Write the corpus; its manifest, from the bytes written (each file's content comes from its
    own seed, drawn in order, so the corpus is the same whatever order the threads run in)."""
    rng = random.Random(seed)
    tops, mids, leaves = TREE[size]
    dirs = [os.path.join(root, f"d{a:02d}", f"s{b}", f"t{c}")
            for a in range(tops) for b in range(mids) for c in range(leaves)]
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    jobs = []
    for count, low, high in SIZES[size]:
        for _ in range(count):
            n = len(jobs)
            jobs.append((os.path.join(dirs[n % len(dirs)], f"f{n:05d}.bin"), rng.randint(low, high),
                         rng.getrandbits(64)))

    def one(job):
        path, nbytes, file_seed = job
        data = random.Random(file_seed).randbytes(nbytes)
        with open(path, "wb") as f:
            f.write(data)
        return path, nbytes, hashlib.sha256(data).hexdigest()

    with ThreadPoolExecutor(THREADS) as pool:
        written = list(pool.map(one, jobs))
    files = [path for path, _, _ in written]
    entries = {os.path.relpath(path, root): ["file", nbytes, digest, "", ""] for path, nbytes, digest in written}
    for rel in {os.path.relpath(p, root) for d in dirs for p in (d, os.path.dirname(d), os.path.dirname(os.path.dirname(d)))}:
        entries[rel] = ["dir", 0, "", "", ""]
    step = len(files) // 20
    for i in range(5):   # hard links: a second name in another directory
        src = files[i * step + 3]
        link = os.path.join(dirs[(i * 7 + 5) % len(dirs)], f"hardlink{i}.bin")
        os.link(src, link)
        names = sorted(os.path.relpath(p, root) for p in (src, link))
        entries[os.path.relpath(link, root)] = list(entries[os.path.relpath(src, root)])
        for name in names:
            entries[name][4] = names[0]
    for i in range(4):   # symlinks to files, relative
        src = files[i * 2 * step + 11]
        link = os.path.join(root, f"d{i:02d}", f"symlink{i}")
        os.symlink(os.path.relpath(src, os.path.dirname(link)), link)
    os.symlink("s1/t0", os.path.join(root, "d05", "dirlink"))
    os.symlink("does-not-exist", os.path.join(root, "d06", "dangling"))
    for link in [os.path.join(root, f"d{i:02d}", f"symlink{i}") for i in range(4)] + [
            os.path.join(root, "d05", "dirlink"), os.path.join(root, "d06", "dangling")]:
        entries[os.path.relpath(link, root)] = ["link", 0, "", os.readlink(link), ""]
    os.sync()
    return entries


def _entry(path):
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        return ["link", 0, "", os.readlink(path), ""], None
    if stat.S_ISDIR(st.st_mode):
        return ["dir", 0, "", "", ""], None
    if stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return ["file", st.st_size, h.hexdigest(), "", ""], st.st_ino if st.st_nlink > 1 else None
    return ["other", 0, "", "", ""], None


def read(root):
    paths = []
    for top, dirnames, filenames in os.walk(root):
        paths += [os.path.join(top, name) for name in dirnames + filenames]
    with ThreadPoolExecutor(THREADS) as pool:
        read_back = list(pool.map(_entry, paths))
    entries = {}
    inodes = {}
    for path, (entry, ino) in zip(paths, read_back):
        rel = os.path.relpath(path, root)
        entries[rel] = entry
        if ino is not None:
            inodes[rel] = ino
    # hard-link groups named by their first member, so two reads of one tree agree
    first = {}
    for rel in sorted(inodes):
        entries[rel][4] = first.setdefault(inodes[rel], rel)
    return entries


if __name__ == "__main__":
    cmd, root = sys.argv[1], sys.argv[2]
    manifest = write(root, int(sys.argv[3]), *sys.argv[4:5]) if cmd == "write" else read(root)
    json.dump(manifest, sys.stdout, sort_keys=True)
