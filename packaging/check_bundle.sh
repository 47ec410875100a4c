#!/usr/bin/env bash
# Check a built bundle as CI does: its --self-test offscreen, both executables' names, a
# headless command, and a third-party workload installed beside it (pip --target
# site-packages) found and run by the frozen app. Removes what it installed.
#   bash packaging/check_bundle.sh [dist/brickyard]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bundle="$(cd "${1:-dist/brickyard}" && pwd)"
py="${PYTHON:-.venv/bin/python}"
export QT_QPA_PLATFORM=offscreen
scratch="$(mktemp -d)"
installed=()
cleanup() {
  for p in "${installed[@]}"; do rm -rf -- "$bundle/site-packages/$p"; done
  rm -rf -- "$scratch"
}
trap cleanup EXIT
# a clean profile: the check never touches the builder's own settings, history or logs
export HOME="$scratch/home" XDG_CONFIG_HOME="$scratch/home/.config" XDG_DATA_HOME="$scratch/home/.local/share" \
       XDG_STATE_HOME="$scratch/home/.local/state" XDG_CACHE_HOME="$scratch/home/.cache"
unset BRICKYARD_DB BRICKYARD_PLUGINS
mkdir -p "$HOME"

echo "== bundle: frozen --self-test (offscreen)"
start=$(date +%s)
"$bundle/brickyard" --self-test
echo "self-test took $(( $(date +%s) - start )) s"

echo "== bundle: Brickyard's modules are frozen bytecode (no start compiles them)"
loose="$(find "$bundle/_internal/brickyard" -name "*.py" ! -path "*/store/migrations/*" ! -path "*/bench/agent/*" | head -5)"
[ -z "$loose" ] || { echo "Python sources in the bundle outside the PYZ archive: $loose" >&2; exit 1; }

echo "== bundle: brickyard-gui and brickyard name their own usage"
"$bundle/brickyard-gui" --help | head -1 | grep -q "usage: brickyard-gui"
"$bundle/brickyard" --version

echo "== bundle: a headless command"
set +e
"$bundle/brickyard" plan "$bundle/_internal/brickyard/resources/examples/three-site.brickyard.json" >/dev/null
rc=$?
set -e
[ "$rc" -le 1 ] || { echo "brickyard plan exited $rc" >&2; exit 1; }

echo "== bundle: a third-party workload installed beside it"
before="$(ls -A "$bundle/site-packages")"
cp -r tests/fixtures/thirdparty-plugin "$scratch/plugin"     # pip builds in place: keep the tree clean
"$py" -m pip install -q --no-deps --target "$bundle/site-packages" "$scratch/plugin"
while IFS= read -r p; do
  grep -qxF -- "$p" <<<"$before" || installed+=("$p")
done < <(ls -A "$bundle/site-packages")
"$bundle/brickyard" bench --list | grep -q "thirdparty-probe" || { echo "the frozen app does not list the plugin" >&2; exit 1; }
mkdir -p "$scratch/target"
"$bundle/brickyard" bench --target "local:$scratch/target" --workload thirdparty-probe --param seconds=0.05 \
    --param repeats=1 >/dev/null
echo "thirdparty-probe (installed in site-packages: ${installed[*]}) listed and run by the frozen app"
echo "bundle check passed"
