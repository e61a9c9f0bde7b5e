#!/bin/sh
# Prints the path of the project's pinned gVisor runsc, building it once
# into a per-user cache. Stdout carries the path alone; progress goes to
# stderr. Usage: SYNAPSE_RUNSC=$(scripts/runsc.sh)
#
# The pin is here and nowhere else: a commit of gVisor's `go` branch (the
# Go-buildable mirror of its tree; gVisor tags no Go module versions).
# Debian's runsc (release 20221219) is another binary, kept by the tests
# as the old gVisor that the tool must refuse.
set -eu
RUNSC_VERSION=v0.0.0-20260527191743-a81fd9dd382e
module=gvisor.dev/gvisor
cache=${XDG_CACHE_HOME:-$HOME/.cache}/synapse-isolation/runsc/$RUNSC_VERSION
bin=$cache/runsc

# has_interp: the ELF file $1 names a program interpreter (PT_INTERP),
# that is, it is dynamically linked. Read from the ELF header with od, so
# a fresh machine needs neither file nor readelf. Fails (exit 2) on what
# it cannot read: not a 64-bit little-endian ELF.
has_interp() {
  [ "$(od -An -c -N 4 "$1" | tr -d ' ')" = '177ELF' ] || { echo "$1: not an ELF file" >&2; return 2; }
  [ "$(od -An -t u1 -j 4 -N 2 "$1" | tr -s ' ')" = ' 2 1' ] || { echo "$1: not a 64-bit little-endian ELF" >&2; return 2; }
  phoff=$(od -An -t u8 -j 32 -N 8 "$1" | tr -d ' ')
  phentsize=$(od -An -t u2 -j 54 -N 2 "$1" | tr -d ' ')
  phnum=$(od -An -t u2 -j 56 -N 2 "$1" | tr -d ' ')
  i=0
  while [ "$i" -lt "$phnum" ]; do
    [ "$(od -An -t u4 -j $((phoff + i * phentsize)) -N 4 "$1" | tr -d ' ')" != 3 ] || return 0
    i=$((i + 1))
  done
  return 1
}

# usable: $1 is the pinned runsc, static, and runs. A dynamic runsc starts
# but its sandbox fails: it re-executes itself after pivot_root, where the
# host's loader is gone.
usable() {
  [ -x "$1" ] || return 1
  info=$(go version -m "$1" 2>/dev/null) || { echo "$1: go version -m cannot read it" >&2; return 1; }
  printf '%s\n' "$info" | grep -q "^[[:space:]]*mod[[:space:]]*$module[[:space:]]*$RUNSC_VERSION[[:space:]]" ||
    { echo "$1: not built from $module@$RUNSC_VERSION" >&2; return 1; }
  printf '%s\n' "$info" | grep -q '^[[:space:]]*build[[:space:]]*CGO_ENABLED=0$' ||
    { echo "$1: built with cgo" >&2; return 1; }
  rc=0
  has_interp "$1" || rc=$?
  case $rc in
  0) echo "$1: dynamically linked (has a program interpreter)" >&2; return 1 ;;
  1) ;;
  *) return 1 ;;
  esac
  "$1" --version >/dev/null 2>&1 || { echo "$1: runsc --version fails" >&2; return 1; }
}

if [ -e "$bin" ]; then
  if usable "$bin"; then
    echo "$bin"
    exit 0
  fi
  echo "the cached runsc is unusable; building it again" >&2
fi

# The tool keeps its own cache in the same directory, mode 0700.
base=${cache%/runsc/*}
[ -d "$base" ] || mkdir -p -m 700 "$base"
mkdir -p "$cache"
# Built beside its final place, so the rename into place is one rename(2)
# on one filesystem: a concurrent caller sees the old file or the whole
# new one, never a half-written binary.
tmp=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "building runsc $module/runsc@$RUNSC_VERSION (static, CGO_ENABLED=0) into $cache; about a minute" >&2
# Outside any module, so the caller's go.mod and go.work play no part.
(cd "$tmp" && CGO_ENABLED=0 GOBIN="$tmp" GOWORK=off go install "$module/runsc@$RUNSC_VERSION") >&2
usable "$tmp/runsc" || { echo "the built runsc is unusable" >&2; exit 1; }
mv -f "$tmp/runsc" "$bin"
"$bin" --version | head -1 >&2
echo "$bin"
