"""A deterministic tarball shaped like a WordPress release: the three-site write-up extracted
latest.tar.gz = 193 directories, 1,835 files, 42,695,316 bytes (≈21 KB per file, most files
small, a few large). Generated here, never downloaded; the same ``scale`` gives the same bytes."""

from __future__ import annotations

import gzip
import io
import math
import random
import tarfile
from dataclasses import dataclass

DIRS, FILES, TOTAL_BYTES = 193, 1835, 42_695_316
_WORDS = ("function", "return", "array", "$post", "$query", "if", "else", "foreach", "wp_", "esc_html",
          "apply_filters", "add_action", "null", "true", "false", "<?php", "*/", "/**", "echo", "=>",
          "isset", "$args", "static", "public", "class", "new", "WP_Error", "__(", "'default'", ";")


@dataclass(frozen=True)
class Tarball:
    data: bytes            # .tar.gz
    dirs: int              # including the top directory
    files: int
    file_bytes: int

    @property
    def objects(self) -> int:
        return self.dirs + self.files


def _text(rng: random.Random, size: int) -> bytes:
    out = []
    n = 0
    while n < size:
        line = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 12))) + "\n"
        out.append(line)
        n += len(line)
    return "".join(out).encode()[:size]


def wordpress_shaped(scale: float = 1.0, seed: int = 2028) -> Tarball:
    if not 0 < scale <= 1:
        raise ValueError("scale must be within (0, 1]")
    rng = random.Random(seed)
    n_dirs = max(1, round(DIRS * scale))
    n_files = max(1, round(FILES * scale))
    total = round(TOTAL_BYTES * scale)
    dirs = ["wordpress"]
    depth = {"wordpress": 0}
    tops = ["wp-admin", "wp-includes", "wp-content"]
    for i in range(1, n_dirs):
        if i <= len(tops):
            parent, name = "wordpress", tops[i - 1]
        else:
            parent = rng.choice([d for d in dirs if depth[d] < 5])
            name = f"{rng.choice(('js', 'css', 'images', 'blocks', 'fonts', 'lib', 'includes', 'assets', 'src'))}-{i}"
        path = f"{parent}/{name}"
        dirs.append(path)
        depth[path] = depth[parent] + 1
    raw = [rng.lognormvariate(8.6, 1.45) for _ in range(n_files)]   # median ≈ 5.4 kB, long tail
    factor = total / sum(raw)
    sizes = [max(1, int(s * factor)) for s in raw]
    sizes[-1] += total - sum(sizes)
    if sizes[-1] < 1:
        raise AssertionError("size scaling left a non-positive file")
    base = _text(rng, 1 << 20)
    doubled = base * 2
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=1) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for d in dirs:
                info = tarfile.TarInfo(d)
                info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1_700_000_000
                tar.addfile(info)
            for i, size in enumerate(sizes):
                d = dirs[rng.randrange(len(dirs))]
                info = tarfile.TarInfo(f"{d}/file-{i}.php")
                info.size, info.mode, info.mtime = size, 0o644, 1_700_000_000
                start = rng.randrange(len(base))
                if size <= len(base):
                    body = doubled[start:start + size]
                else:
                    body = (base * math.ceil((start + size) / len(base)))[start:start + size]
                tar.addfile(info, io.BytesIO(body))
    return Tarball(buf.getvalue(), len(dirs), n_files, total)
