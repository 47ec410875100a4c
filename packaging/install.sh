#!/usr/bin/env bash
# Install this Brickyard bundle for you alone, without root:
#   ./install.sh                 copy the bundle to ~/.local/lib/brickyard, put brickyard and
#                                brickyard-gui in ~/.local/bin, the menu entry in
#                                ~/.local/share/applications and the icons in ~/.local/share/icons
#   ./install.sh --uninstall     remove exactly what the install put there (it keeps a list);
#                                your settings, history and logs are not touched
# (~/.local/share follows $XDG_DATA_HOME.) Installing again replaces the earlier install.
# Nothing that exists and was not put there by this script is ever overwritten or removed.
set -euo pipefail
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
home="${HOME:?HOME is not set}"
data="${XDG_DATA_HOME:-}"
case "$data" in /*) ;; *) data="$home/.local/share" ;; esac
prefix="$home/.local/lib/brickyard"
bin="$home/.local/bin"
apps="$data/applications"
icons="$data/icons/hicolor"
manifest="$prefix/install-manifest.txt"

die() { echo "install.sh: $*" >&2; exit 1; }

uninstall() {
  [ -f "$manifest" ] || die "nothing to uninstall: $manifest is not there (Brickyard was not installed by this script)"
  local kept=() dirs=() line
  while IFS= read -r line; do
    case "$line" in
      "d "*) dirs+=("${line#d }") ;;
      "f "*) rm -f -- "${line#f }" ;;
    esac
  done < "$manifest"
  rm -f -- "$manifest"
  # folders it made, deepest first, and only when empty: what you added yourself stays
  local i
  for (( i=${#dirs[@]}-1; i>=0; i-- )); do
    rmdir -- "${dirs[$i]}" 2>/dev/null || { [ -d "${dirs[$i]}" ] && kept+=("${dirs[$i]}"); }
  done
  echo "Brickyard uninstalled. Your settings (~/.config/brickyard), history and data (~/.local/share/brickyard) and logs (~/.local/state/brickyard) are kept."
  if [ ${#kept[@]} -gt 0 ]; then
    echo "Kept, because they hold files the install did not put there: ${kept[*]}"
  fi
}

if [ "${1:-}" = "--uninstall" ]; then
  uninstall
  exit 0
fi
[ $# -eq 0 ] || die "usage: ./install.sh [--uninstall]"
[ -x "$src/brickyard" ] && [ -d "$src/_internal" ] || die "$src is not a Brickyard bundle (no brickyard executable next to this script)"
[ "$(id -u)" -ne 0 ] || echo "install.sh: note: installing into root's home ($home); run it as the user who will use Brickyard" >&2

if [ -f "$manifest" ]; then
  echo "Replacing the Brickyard installed in $prefix"
  if [ "$src" = "$prefix" ]; then die "run the install.sh of a new bundle, not the installed copy (or use --uninstall)"; fi
  uninstall >/dev/null
fi
[ ! -e "$prefix" ] || die "$prefix exists and was not made by this script: move it away first"
for target in "$bin/brickyard" "$bin/brickyard-gui" "$apps/brickyard.desktop" "$icons/scalable/apps/brickyard.svg"; do
  [ ! -e "$target" ] && [ ! -L "$target" ] || die "$target exists and was not made by this script (a pip --user install?): remove it first"
done

list=()
made_dir() {  # mkdir -p, listing each folder it creates
  local d="$1" missing=()
  while [ ! -d "$d" ]; do missing=("$d" "${missing[@]}"); d="$(dirname "$d")"; done
  for d in "${missing[@]}"; do mkdir -- "$d"; list+=("d $d"); done
}
made_file() { list+=("f $1"); }

made_dir "$prefix"
cp -a "$src/." "$prefix/"
# every file and folder of the copy, folders before their contents
while IFS= read -r -d '' path; do
  if [ -d "$path" ] && [ ! -L "$path" ]; then list+=("d $path"); else list+=("f $path"); fi
done < <(find "$prefix" -mindepth 1 -print0)

made_dir "$bin"
ln -s "$prefix/brickyard" "$bin/brickyard"; made_file "$bin/brickyard"
ln -s "$prefix/brickyard-gui" "$bin/brickyard-gui"; made_file "$bin/brickyard-gui"

made_dir "$apps"
sed "s|@BUNDLE@|$prefix|g" "$src/brickyard.desktop" > "$apps/brickyard.desktop"
chmod 644 "$apps/brickyard.desktop"
made_file "$apps/brickyard.desktop"

theme="$prefix/_internal/brickyard/resources/icons"
for png in "$theme"/hicolor/*/apps/brickyard.png; do
  size="$(basename "$(dirname "$(dirname "$png")")")"
  [ ! -e "$icons/$size/apps/brickyard.png" ] || die "$icons/$size/apps/brickyard.png exists and was not made by this script"
  made_dir "$icons/$size/apps"
  install -m 644 "$png" "$icons/$size/apps/brickyard.png"; made_file "$icons/$size/apps/brickyard.png"
done
made_dir "$icons/scalable/apps"
install -m 644 "$theme/brickyard.svg" "$icons/scalable/apps/brickyard.svg"; made_file "$icons/scalable/apps/brickyard.svg"

printf '%s\n' "${list[@]}" > "$manifest"
echo "Brickyard installed in $prefix"
echo "  menu entry: $apps/brickyard.desktop (Brickyard, in System/Utilities)"
echo "  commands:   $bin/brickyard, $bin/brickyard-gui"
case ":$PATH:" in *":$bin:"*) ;; *) echo "  note: $bin is not on your PATH; add it, or start $bin/brickyard-gui by its full path" ;; esac
echo "  uninstall:  $prefix/install.sh --uninstall"
