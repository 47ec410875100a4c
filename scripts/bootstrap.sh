#!/usr/bin/env bash
# Set up Brickyard on a fresh Debian/Ubuntu machine, then start the app or run the tests.
#   bash scripts/bootstrap.sh start [FILE]   installs what the app needs, starts brickyard-gui
#   bash scripts/bootstrap.sh test [ARGS]    installs what the tests need, runs pytest; without
#                                            ARGS (as CI) it also builds and checks the bundle
# As root it installs the apt packages itself; otherwise it prints the exact apt-get line and stops.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-}"; shift || true
case "$mode" in start|test) ;; *) echo "usage: bash scripts/bootstrap.sh start [FILE] | test [PYTEST-ARGS]" >&2; exit 2;; esac

packages() {  # the words of the given package lists, comments dropped
  sed -e 's/#.*//' "$@" | tr -s ' \n' ' '
}
lists=(scripts/apt-packages.txt)
if [ "$mode" = test ]; then lists+=(scripts/apt-packages-test.txt); fi
want="$(packages "${lists[@]}")"
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "Brickyard needs these Debian packages; install them, then run this again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
  fi
  echo "== apt: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  # No systemd in containers/CI: keep package installs from starting services (glusterd,
  # sshd, postgresql); Brickyard's sandbox and tests start what they need themselves.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

py="${PYTHON:-python3}"
if ! "$py" -c 'import sys; sys.exit(not ((3, 11) <= sys.version_info[:2] < (3, 13)))'; then
  echo "Brickyard needs Python 3.11 or 3.12; $("$py" --version 2>&1) found. Set PYTHON=/path/to/python3.11." >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  echo "== venv: .venv"
  "$py" -m venv .venv
fi
stamp=.venv/.brickyard-installed
extra=""; [ "$mode" = test ] && extra="[dev]"
shopt -s nullglob
hash="$(cat pyproject.toml plugins/*/pyproject.toml | sha256sum | cut -c1-16)"
have="$(cat "$stamp" 2>/dev/null || true)"
# a test install (with [dev]) also serves the app; an app install does not serve the tests
if [ "$have" != "test $hash" ] && [ "$have" != "$mode $hash" ]; then
  echo "== pip: brickyard$extra and plugins"
  .venv/bin/python -m pip install -q --upgrade pip
  plugin_args=()
  for d in plugins/*/; do [ -f "$d/pyproject.toml" ] && plugin_args+=(-e "$d"); done
  .venv/bin/python -m pip install -q -e ".$extra" "${plugin_args[@]}"
  echo "$mode $hash" > "$stamp"
fi
# Compiled bytecode for Brickyard's own modules (pip compiles what it installs into the venv;
# the editable sources are imported from app/ and plugins/). Without it every start compiles
# every module again, ~20 % of start-up CPU, and environments that set PYTHONDONTWRITEBYTECODE
# never keep the result. Quick when nothing changed: only changed sources are compiled.
.venv/bin/python -m compileall -q -j 0 app plugins >/dev/null

if [ "$mode" = start ]; then
  exec .venv/bin/brickyard-gui "$@"
fi

export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
echo "== import-linter"
.venv/bin/lint-imports
echo "== tests/core with Qt, SSH and SQL unimportable"
BRICKYARD_BLOCK_IMPORTS=1 .venv/bin/python -m pytest -q -p no:pytest-qt -p no:cacheprovider -W "ignore::pytest.PytestConfigWarning" tests/core
echo "== pytest"
set +e
.venv/bin/python -m pytest -q -ra --durations=25 "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then echo "pytest collected no tests" >&2; fi
# A full run (no pytest arguments, as CI) also builds the one-folder bundle and checks it:
# its --self-test offscreen and a third-party plugin beside it. BRICKYARD_SKIP_BUNDLE=1 skips it.
if [ $# -eq 0 ] && [ "${BRICKYARD_SKIP_BUNDLE:-}" != 1 ]; then
  echo "== bundle: packaging/build.sh --check"
  set +e
  bash packaging/build.sh --check
  bundle_rc=$?
  set -e
  if [ "$bundle_rc" -ne 0 ]; then echo "the bundle build or its check failed (exit $bundle_rc)" >&2; fi
  [ "$rc" -ne 0 ] || rc=$bundle_rc
fi
exit "$rc"
