#!/usr/bin/env bash
# Install this Brickyard bundle for you alone, without root:
#   ./install.sh                 copy the bundle to ~/.local/lib/brickyard, put brickyard and
#                                brickyard-gui in ~/.local/bin, the menu entry in
#                                ~/.local/share/applications and the icons in ~/.local/share/icons
#   ./install.sh --uninstall     remove what the install made and that is still as it made it;
#                                your settings, history and logs are not touched
# (~/.local/share follows $XDG_DATA_HOME.) Installing again replaces the earlier install.
#
# Nothing that exists and was not put there by this script is ever overwritten or removed:
# - every place is checked before anything is written; a refused install writes nothing;
# - the list of what it makes (~/.local/lib/brickyard/install-manifest) is written before each
#   thing is made, so an install stopped half-way (a full disk, Ctrl-C) can always be undone, and
#   a failed one undoes itself;
# - the list holds each path NUL-terminated (any file name is safe) with its type and its content
#   (SHA-256 of a file, target of a link); uninstall removes a path only while it is still that,
#   never through a folder that has since become a link, and folders only when empty; it says
#   what it left and why.
set -Eeuo pipefail
shopt -u patsub_replacement 2>/dev/null || true   # bash 5.2: '&' in a replacement is literal
set -o noclobber                                    # '>' never overwrites a file

src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
home="${HOME:?HOME is not set}"
data="${XDG_DATA_HOME:-}"
case "$data" in /*) ;; *) data="$home/.local/share" ;; esac
prefix="$home/.local/lib/brickyard"
bin="$home/.local/bin"
apps="$data/applications"
icons="$data/icons/hicolor"
manifest="$prefix/install-manifest"
legacy_manifest="$prefix/install-manifest.txt"
MAGIC="brickyard-install-manifest 2"

show() {  # a path as the user can read it back: quoted when it holds a control character
  case "$1" in *[[:cntrl:]]*) printf '%s' "${1@Q}" ;; *) printf '%s' "$1" ;; esac
}
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# ---- the manifest: a magic record, then (kind, datum, path) triples, each field NUL-terminated;
# kind d = a folder it made, f = a file (datum: its SHA-256), l = a link (datum: its target)
R_KIND=() R_DATUM=() R_PATH=()
read_manifest() {
  local magic kind datum path
  R_KIND=() R_DATUM=() R_PATH=()
  {
    IFS= read -r -d '' magic || true
    [ "$magic" = "$MAGIC" ] || die "$(show "$manifest") is not a list this install.sh can read; nothing removed"
    # a record cut short (the disk filled while it was written) has no final NUL and is not read
    while IFS= read -r -d '' kind && IFS= read -r -d '' datum && IFS= read -r -d '' path; do
      R_KIND+=("$kind") R_DATUM+=("$datum") R_PATH+=("$path")
    done
  } < "$manifest"
}

sha256_of() {  # the SHA-256 of standard input
  local sum
  sum="$(sha256sum)"
  printf '%s' "${sum:0:64}"
}

# ---- what uninstalling would remove: REMOVE[path]=1 for what is still as the install made it,
# KEPT: "path: why" for the rest. With "do", it removes them.
declare -A REMOVE=() KEPT_PATH=()
KEPT=()
keep() {  # keep PATH WHY: left in place, said once
  KEPT_PATH["$1"]=1
  KEPT+=("$(show "$1"): $2")
}
uninstall_plan() {
  local mode="$1" i n p parent kind datum rec child other
  local -A made_dir=() dir_ok=() expect=() now=()
  local -a files=()
  REMOVE=() KEPT=() KEPT_PATH=()
  n=${#R_PATH[@]}
  for ((i = 0; i < n; i++)); do [ "${R_KIND[$i]}" != d ] || made_dir["${R_PATH[$i]}"]=1; done
  REMOVE["$manifest"]=1
  for ((i = 0; i < n; i++)); do
    kind=${R_KIND[$i]} datum=${R_DATUM[$i]} p=${R_PATH[$i]}
    parent=${p%/*}
    # inside a folder the install made, but that folder is gone or is no longer that folder:
    # never look through it (what is there now is not the install's)
    if [ -n "${made_dir[$parent]:-}" ] && [ -z "${dir_ok[$parent]:-}" ]; then continue; fi
    if [ ! -e "$p" ] && [ ! -L "$p" ]; then continue; fi        # already gone
    case "$kind" in
      d)
        if [ -L "$p" ]; then keep "$p" "now a link, not the folder the install made (nothing in it was touched)"
        elif [ -d "$p" ]; then dir_ok["$p"]=1
        else keep "$p" "no longer a folder"; fi ;;
      l)
        if [ -L "$p" ] && [ "$(readlink -- "$p")" = "$datum" ]; then REMOVE["$p"]=1
        else keep "$p" "not the link the install made any more"; fi ;;
      f)
        if [ -L "$p" ]; then keep "$p" "now a link, not the file the install made"
        elif [ -f "$p" ]; then files+=("$p"); expect["$p"]=$datum
        else keep "$p" "no longer a file"; fi ;;
    esac
  done
  if [ ${#files[@]} -gt 0 ]; then
    while IFS= read -r -d '' rec; do now["${rec:66}"]=${rec:0:64}; done \
      < <(printf '%s\0' "${files[@]}" | xargs -0 -r sha256sum -z -- 2>/dev/null || true)
  fi
  for p in "${files[@]}"; do
    if [ "${now[$p]:-}" = "${expect[$p]}" ]; then REMOVE["$p"]=1
    else keep "$p" "changed since the install"; fi
  done
  if [ "$mode" = do ]; then
    printf '%s\0' "${!REMOVE[@]}" | xargs -0 -r rm -f --      # files and links only so far
  fi
  # folders it made, deepest first, and only when empty: what you added yourself stays
  for ((i = n - 1; i >= 0; i--)); do
    p=${R_PATH[$i]}
    [ "${R_KIND[$i]}" = d ] && [ -n "${dir_ok[$p]:-}" ] || continue
    if [ "$mode" = do ] && rmdir -- "$p" 2>/dev/null; then REMOVE["$p"]=1; continue; fi
    other=0 stays=0
    while IFS= read -r -d '' child; do
      if [ -n "${KEPT_PATH[$child]:-}" ]; then stays=1
      elif [ -z "${REMOVE[$child]:-}" ] || [ "$mode" = do ]; then other=1; fi
    done < <(find "$p" -mindepth 1 -maxdepth 1 -print0)
    if [ "$other" = 1 ]; then keep "$p" "holds files the install did not make"
    elif [ "$stays" = 1 ]; then KEPT_PATH["$p"]=1        # kept for what is said above
    else REMOVE["$p"]=1; fi
  done
}

load_install() {  # the manifest of the install in $prefix, or die saying why there is none
  if [ -L "$prefix" ]; then die "$(show "$prefix") is a link, not the folder the install made; nothing removed"; fi
  if [ ! -f "$manifest" ] || [ -L "$manifest" ]; then
    if [ -f "$legacy_manifest" ]; then
      die "$(show "$prefix") was installed by an earlier install.sh whose list cannot be checked safely; nothing removed. Remove $(show "$prefix"), $(show "$bin")/brickyard, $(show "$bin")/brickyard-gui, $(show "$apps")/brickyard.desktop and the brickyard icons under $(show "$icons") yourself after looking at them"
    fi
    die "nothing to uninstall: $(show "$manifest") is not there (Brickyard was not installed by this script)"
  fi
  read_manifest
}

say_kept() {  # [HEADER]
  local k
  [ ${#KEPT[@]} -gt 0 ] || return 0
  echo "${1:-Left in place, because they are not (or no longer only) what the install made:}"
  for k in "${KEPT[@]}"; do printf '  %s\n' "$k"; done
}

uninstall() {
  load_install
  uninstall_plan do
  echo "Brickyard uninstalled. Your settings (~/.config/brickyard), history and data (~/.local/share/brickyard) and logs (~/.local/state/brickyard) are kept."
  say_kept
}

if [ "${1:-}" = "--uninstall" ]; then
  [ $# -eq 1 ] || die "usage: ./install.sh [--uninstall]"
  uninstall
  exit 0
fi
[ $# -eq 0 ] || die "usage: ./install.sh [--uninstall]"

# ---- 1. check everything before writing anything
[ -x "$src/brickyard" ] && [ -d "$src/_internal" ] || die "$(show "$src") is not a Brickyard bundle (no brickyard executable next to this script)"
[ ! -e "$src/install-manifest" ] || die "run the install.sh of a new bundle, not the installed copy (or use --uninstall)"
case "$prefix" in
  *[[:cntrl:]]*) die "$(show "$home"): a home folder whose path holds a control character (a new line, a tab) cannot be written in a menu entry" ;;
esac
[ "$(id -u)" -ne 0 ] || echo "install.sh: note: installing into root's home ($home); run it as the user who will use Brickyard" >&2
theme="$src/_internal/brickyard/resources/icons"
[ -f "$theme/brickyard.svg" ] || die "$(show "$src") is not a whole Brickyard bundle: $(show "$theme/brickyard.svg") is missing"
[ -f "$src/brickyard.desktop" ] || die "$(show "$src") is not a whole Brickyard bundle: brickyard.desktop is missing"
sizes=()
for png in "$theme"/hicolor/*/apps/brickyard.png; do
  [ -f "$png" ] || continue
  size=${png#"$theme/hicolor/"}
  sizes+=("${size%%/*}")
done

replacing=0
REMOVE=()
if [ -e "$prefix" ] || [ -L "$prefix" ]; then
  if [ -f "$manifest" ] && [ ! -L "$manifest" ] && [ ! -L "$prefix" ]; then
    replacing=1
    read_manifest
    uninstall_plan check
    if [ ${#KEPT[@]} -gt 0 ]; then
      {
        echo "install.sh: the Brickyard installed in $(show "$prefix") cannot be replaced whole; nothing was changed."
        say_kept "These are not (or no longer only) what that install made:"
        echo "Move these away (or run $(show "$prefix")/install.sh --uninstall and look at what it keeps), then install again."
      } >&2
      exit 1
    fi
  elif [ -f "$legacy_manifest" ]; then
    die "$(show "$prefix") was installed by an earlier install.sh whose list cannot be checked safely; remove that install yourself (see install.sh --uninstall), then install again"
  else
    die "$(show "$prefix") exists and was not made by this script: move it away first"
  fi
fi

targets=("$prefix" "$bin/brickyard" "$bin/brickyard-gui" "$apps/brickyard.desktop" "$icons/scalable/apps/brickyard.svg")
for size in "${sizes[@]}"; do targets+=("$icons/$size/apps/brickyard.png"); done
problems=()
for target in "${targets[@]}"; do
  if { [ -e "$target" ] || [ -L "$target" ]; } && [ -z "${REMOVE[$target]:-}" ]; then
    problems+=("$(show "$target") exists and was not made by this script (a pip --user install?): remove it first")
    continue
  fi
  d=${target%/*}      # the first folder above it that exists must be a folder you can write in
  while [ -n "$d" ] && [ ! -e "$d" ] && [ ! -L "$d" ]; do d=${d%/*}; done
  if [ -n "$d" ] && [ ! -d "$d" ]; then problems+=("$(show "$d") is in the way of $(show "$target"): it is not a folder")
  elif [ -n "$d" ] && [ ! -w "$d" ]; then problems+=("cannot write in $(show "$d") (for $(show "$target"))"); fi
done
if [ ${#problems[@]} -gt 0 ]; then
  { echo "install.sh: nothing was installed:"; printf '  %s\n' "${problems[@]}"; } >&2
  exit 1
fi

# the menu entry, with the bundle's path escaped as the Desktop Entry spec says: in a string,
# '\' is '\\'; inside Exec's double quotes, '"' '`' '$' '\' take a backslash first, '%' is '%%'
string_escaped=${prefix//\\/\\\\}
exec_quoted=$prefix
exec_quoted=${exec_quoted//\\/\\\\}
exec_quoted=${exec_quoted//\"/\\\"}
exec_quoted=${exec_quoted//\`/\\\`}
exec_quoted=${exec_quoted//\$/\\\$}
exec_quoted=${exec_quoted//%/%%}
exec_quoted=${exec_quoted//\\/\\\\}
desktop=""
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    Exec=*) line=${line//@BUNDLE@/$exec_quoted} ;;
    *) line=${line//@BUNDLE@/$string_escaped} ;;
  esac
  desktop+="$line"$'\n'
done < "$src/brickyard.desktop"

# ---- 2. write, listing each thing in the manifest before making it
early=()
rollback() {
  local rc=$? i
  trap - ERR INT TERM HUP
  set +e
  echo "install.sh: the install stopped (exit $rc); removing what it had made" >&2
  if [ -f "$manifest" ]; then ( read_manifest && uninstall_plan do && say_kept >&2 ); fi
  if [ ${#early[@]} -gt 0 ]; then      # the manifest was being started: it lists nothing yet
    rm -f -- "$manifest"
    for ((i = ${#early[@]} - 1; i >= 0; i--)); do rmdir -- "${early[$i]}" 2>/dev/null; done
  fi
  exit 1
}
trap rollback ERR INT TERM HUP

if [ "$replacing" = 1 ]; then
  echo "Replacing the Brickyard installed in $prefix"
  read_manifest
  uninstall_plan do
fi

# the install folder (and the folders above it) first: the manifest lives in it
d="$prefix" missing=()
while [ -n "$d" ] && [ ! -d "$d" ]; do missing=("$d" "${missing[@]}"); d=${d%/*}; done
for d in "${missing[@]}"; do mkdir -- "$d"; early+=("$d"); done
printf '%s\0' "$MAGIC" > "$manifest"
record() { printf '%s\0%s\0%s\0' "$1" "$2" "$3" >> "$manifest"; }
for d in "${missing[@]}"; do record d - "$d"; done
early=()

made_dir() {  # mkdir -p, listing each folder it creates
  local d="$1" missing=()
  while [ -n "$d" ] && [ ! -d "$d" ]; do missing=("$d" "${missing[@]}"); d=${d%/*}; done
  for d in "${missing[@]}"; do record d - "$d"; mkdir -- "$d"; done
}

# the bundle: every file, link and folder of it, folders before their contents
declare -A src_sum=()
while IFS= read -r -d '' rec; do src_sum["${rec:66}"]=${rec:0:64}; done \
  < <(find "$src" -mindepth 1 -type f -print0 | xargs -0 -r sha256sum -z --)
while IFS= read -r -d '' s; do
  dest="$prefix/${s#"$src"/}"
  if [ -L "$s" ]; then printf '%s\0%s\0%s\0' l "$(readlink -- "$s")" "$dest"
  elif [ -d "$s" ]; then printf '%s\0%s\0%s\0' d - "$dest"
  elif [ -f "$s" ] && [ -n "${src_sum[$s]:-}" ]; then printf '%s\0%s\0%s\0' f "${src_sum[$s]}" "$dest"
  else echo "install.sh: cannot read $(show "$s") of the bundle" >&2; false; fi
done < <(find "$src" -mindepth 1 -print0) >> "$manifest"
cp -a -- "$src/." "$prefix/"

made_dir "$bin"
for name in brickyard brickyard-gui; do
  record l "$prefix/$name" "$bin/$name"
  ln -sT -- "$prefix/$name" "$bin/$name"
done

made_dir "$apps"
record f "$(printf '%s' "$desktop" | sha256_of)" "$apps/brickyard.desktop"
printf '%s' "$desktop" > "$apps/brickyard.desktop"
chmod 644 -- "$apps/brickyard.desktop"

install_icon() {  # install_icon SOURCE DEST
  record f "$(sha256_of < "$1")" "$2"
  cp -- "$1" "$2"
  chmod 644 -- "$2"
}
for size in "${sizes[@]}"; do
  made_dir "$icons/$size/apps"
  install_icon "$theme/hicolor/$size/apps/brickyard.png" "$icons/$size/apps/brickyard.png"
done
made_dir "$icons/scalable/apps"
install_icon "$theme/brickyard.svg" "$icons/scalable/apps/brickyard.svg"
trap - ERR INT TERM HUP

echo "Brickyard installed in $prefix"
echo "  menu entry: $apps/brickyard.desktop (Brickyard, in System/Utilities)"
echo "  commands:   $bin/brickyard, $bin/brickyard-gui"
case ":$PATH:" in *":$bin:"*) ;; *) echo "  note: $bin is not on your PATH; add it, or start $bin/brickyard-gui by its full path" ;; esac
echo "  uninstall:  $prefix/install.sh --uninstall"
