#!/usr/bin/env bash
# Build Brickyard as one folder: dist/brickyard/ holds the `brickyard` executable (the CLI; with
# `gui`, or as `brickyard-gui`, the window), install.sh and everything they need, no Python setup.
#   bash packaging/build.sh            build, then print the bundle's size and build time
#   bash packaging/build.sh --check    also run the bundle's --self-test offscreen and the
#                                      third-party plugin check (what CI does)
# Needs the dev extra (PyInstaller): `bash scripts/bootstrap.sh test --co -q` installs it.
# The bundle carries this machine's glibc and OpenSSL: build on the oldest distribution you
# support. Targets need libegl1 libgl1 and a font (fonts-dejavu-core), as scripts/apt-packages.txt.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
py="${PYTHON:-.venv/bin/python}"
limit_mb=220
if ! "$py" -c 'import PyInstaller' 2>/dev/null; then
  echo "PyInstaller is not installed for $py: run \`bash scripts/bootstrap.sh test --co -q\` (the dev extra has it)" >&2
  exit 1
fi
start=$(date +%s)
rm -rf dist/brickyard
"$py" -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/brickyard.spec
bundle=dist/brickyard
# Strip debug data and unneeded symbols (~40 MB), but never a file auditwheel patched: those in
# *.libs folders and the extension modules whose RUNPATH points there (numpy's OpenBLAS broke,
# "ELF load command address/offset not page-aligned", when PyInstaller's strip=True touched it).
stripped=0
while IFS= read -r -d '' so; do
  case "$so" in *.libs/*) continue ;; esac
  if readelf -d "$so" 2>/dev/null | grep -E "R(UN)?PATH" | grep -q "\.libs"; then continue; fi
  strip --strip-unneeded "$so" 2>/dev/null && stripped=$((stripped + 1))
done < <(find "$bundle/_internal" -name "*.so*" -type f -print0)
echo "stripped $stripped shared objects (auditwheel-patched ones left as they are)"
ln -s brickyard "$bundle/brickyard-gui"
install -m 755 packaging/install.sh "$bundle/install.sh"
install -m 644 packaging/brickyard.desktop "$bundle/brickyard.desktop"
mkdir -p "$bundle/site-packages"
cat > "$bundle/site-packages/README" <<'TXT'
Third-party workload plugins installed here are found like the built-in ones:
  pip install --no-deps --target /path/to/brickyard/site-packages brickyard-workload-NAME
(--no-deps: Brickyard and its libraries are already in the bundle.)
TXT
seconds=$(( $(date +%s) - start ))
size_mb=$(du -sm "$bundle" | cut -f1)
echo "bundle: $bundle, ${size_mb} MB, built in ${seconds} s (PyInstaller $("$py" -m PyInstaller --version))"
if [ "$size_mb" -ge "$limit_mb" ]; then
  echo "bundle is ${size_mb} MB, over the ${limit_mb} MB limit: see what grew with \`du -sh $bundle/_internal/* | sort -h\`" >&2
  exit 1
fi
if [ "${1:-}" = "--check" ]; then
  bash packaging/check_bundle.sh "$bundle"
fi
