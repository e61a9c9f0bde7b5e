#!/bin/sh
# Renews isolation/container/images/KIND/ARCH.lock (or FILE), the Debian packages
# pinned for an image: those that isolation/container/images/KIND/packages wants
# (its `want` lines, in order) and what they need, resolved from the
# packages' own dependencies (Depends and Pre-Depends, recursively, as apt
# would install them without recommends), but for those it leaves out
# (its `leave` lines, and what no image may hold) and what only they would
# bring in; then pinned at the mirror's current versions with their
# SHA-256 by debian-root.sh's --update-lock. The root scripts run it on
# build-image.sh KIND --update-lock.
#
# With --with, it writes an operator's lock instead: the packages of the
# kind's own lock (FROM, the project's ARCH.lock) as they are pinned
# there, and PKG... with what they need that FROM lacks, resolved and
# pinned the same way (build-image.sh KIND --with PKG,... --lock FILE
# --update-lock). Refused before anything is fetched, each naming its
# package: one the mirror does not have, one no image may hold (a shell,
# perl, a package manager, init) or the kind leaves out, and one whose
# dependencies would bring a shell or perl (the chain is named). What only
# maintainer scripts use (dpkg, debconf) is left out, said on stderr.
#
# Usage: scripts/debian-lock.sh KIND [--arch ARCH] [--lock FILE] [--with PKG,... [--from FROM]]
#   ARCH is amd64 or arm64 (this machine's by default), resolved from that
#   architecture's package lists (debian-apt.sh)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-}
[ $# -eq 0 ] || shift
arch=$(dpkg --print-architecture)
lock=""
with=""
from=""
while [ $# -gt 1 ]; do
  case $1 in
    --arch) arch=$2 ;;
    --lock) lock=$2 ;;
    --with) with=$(echo "$2" | tr ',' ' ') ;;
    --from) from=$2 ;;
    *) break ;;
  esac
  shift 2
done
packages=$top/isolation/container/images/$kind/packages
if [ $# -ne 0 ] || [ -z "$kind" ] || { [ ! -f "$packages" ] && [ -z "$with" ]; } || [ ! -d "$top/isolation/container/images/$kind" ]; then
  echo "usage: scripts/debian-lock.sh KIND [--arch ARCH] [--lock FILE] [--with PKG,... [--from FROM]], KIND one whose isolation/container/images/KIND/packages says what to pin (with --with, any kind with a lock)" >&2
  exit 2
fi
lock=${lock:-$top/isolation/container/images/$kind/$arch.lock}
from=${from:-$top/isolation/container/images/$kind/$arch.lock}
# field WORD: the packages of the lines that start with WORD, in order.
field() { [ ! -f "$packages" ] || awk -v w="$1" '$1 == w { for (i = 2; i <= NF; i++) print $i }' "$packages"; }
wanted=$(field want)
seeded=""
if [ -n "$with" ]; then
  if [ ! -f "$from" ] || [ "$(cd "$(dirname "$lock")" 2>/dev/null && pwd)/$(basename "$lock")" = "$(cd "$(dirname "$from")" && pwd)/$(basename "$from")" ]; then
    echo "$kind lock: --with writes a lock of its own, not $from (give --lock FILE)" >&2
    exit 2
  fi
  wanted=$with
  seeded=$(awk 'NF { print $1 }' "$from")
fi
# What no image may hold, with all it alone would bring in: the shells
# and perl ($forbidden: what --with refuses even when only a dependency
# needs it, a program's way to run what the policy leaves out), a package
# manager and what it needs (dpkg, apt, debconf, install-info, tar), init
# bits (sysvinit-utils, lsb-base, init-system-helpers, systemd); then what
# the kind leaves out.
forbidden="dash bash zsh mksh ksh busybox busybox-static tcsh csh fish posh yash rc sash perl perl-base perl-modules-5.36 libperl5.36"
excluded="$forbidden dpkg apt debconf cdebconf install-info tar sysvinit-utils lsb-base
init-system-helpers systemd
$(field leave)"
[ -n "$wanted" ] || { echo "$kind lock: $packages wants no package" >&2; exit 2; }
. "$top/scripts/debian-apt.sh"
debian_arch "$arch"
step() { echo "$kind lock: $*" >&2; }

if [ -n "$with" ]; then
  refused=false
  updated=false
  for pkg in $with; do
    # shellcheck disable=SC2086
    candidate=$(apt-cache $apt_opts $resolve_opts policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
    if { [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; } && ! $updated && [ "$(id -u)" = 0 ]; then
      # A fresh machine's lists may be missing: one update, then ask again.
      updated=true
      # shellcheck disable=SC2086
      apt-get $apt_opts update -qq >/dev/null 2>&1 || true
      # shellcheck disable=SC2086
      candidate=$(apt-cache $apt_opts $resolve_opts policy "$pkg" 2>/dev/null | awk '/Candidate:/ {print $2}')
    fi
    if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
      # A library's Debian name, for one given by its upstream name.
      hint=""
      for alt in "python3-$pkg" "node-$pkg"; do
        # shellcheck disable=SC2086
        if apt-cache $apt_opts $resolve_opts policy "$alt" 2>/dev/null | grep -q 'Candidate: [^(]'; then
          hint="; Debian names it $alt"
          break
        fi
      done
      echo "$kind lock: --with $pkg: not in the mirror's $arch package lists (apt-cache policy $pkg has no candidate)$hint" >&2
      refused=true
    elif printf '%s\n' $excluded | grep -qx "$pkg"; then
      if printf '%s\n' $(field leave) | grep -qx "$pkg"; then
        echo "$kind lock: --with $pkg: the $kind image leaves it out (isolation/container/images/$kind/packages says why)" >&2
      elif printf '%s\n' $forbidden | grep -qx "$pkg"; then
        echo "$kind lock: --with $pkg: a shell or perl, which no image may hold" >&2
      else
        echo "$kind lock: --with $pkg: a package manager, an archiver or init, which no image may hold" >&2
      fi
      refused=true
    elif printf '%s\n' $seeded | grep -qx "$pkg"; then
      echo "$kind lock: --with $pkg: the $kind image has it already" >&2
      refused=true
    fi
  done
  $refused && exit 1
fi

step "resolving the dependencies of $arch's $(echo $wanted)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# apt-cache depends lists each dependency of a package on a line, an
# alternative that has others after it marked " |Depends:", a virtual
# package as <name> followed by its providers, indented. A dependency is
# met if one of its alternatives (or their providers) is chosen already;
# otherwise the first alternative that is not excluded is chosen, as apt
# chooses. Packages are chosen as they are found, in a fixed order, so
# the same package lists give the same set.
awk -v kind="$kind" -v apt="$(echo $apt_opts $resolve_opts)" -v wanted="$wanted" -v excluded="$excluded" \
  -v seeded="$seeded" -v forbidden="$forbidden" '
function choose(p, by) {
  if (p in chosen || p in excl) return
  chosen[p] = 1
  parent[p] = by
  queue[n++] = p
}
# chain(p): how a wanted package came to need p, "a, b, p".
function chain(p,   s) {
  for (s = p; parent[p] != ""; p = parent[p]) s = parent[p] ", " s
  return s
}
function settle(   i, j, k, c, cands) {
  if (alts == 0) return
  # Met already?
  for (i = 0; i < alts; i++) {
    k = split(alt[i], cands, " ")
    for (j = 1; j <= k; j++) if (cands[j] in chosen) { alts = 0; return }
  }
  for (i = 0; i < alts; i++) {
    k = split(alt[i], cands, " ")
    for (j = 1; j <= k; j++) if (!(cands[j] in excl)) { choose(cands[j], current); alts = 0; return }
  }
  split(alt[0], cands, " ")
  if (operator && cands[1] in forbid) {
    if (root(current) in reported) { alts = 0; return }
    reported[root(current)] = 1
    printf "%s lock: --with %s: would bring %s (%s), a shell or perl, which no image may hold\n", kind, root(current), cands[1], chain(current) ", " cands[1] > "/dev/stderr"
    refused = 1
  } else {
    printf "%s lock: leaving out %s\n", kind, alt[0] > "/dev/stderr"
  }
  alts = 0
}
function root(p) {
  while (parent[p] != "") p = parent[p]
  return p
}
BEGIN {
  split(excluded, e, /[ \n]+/); for (i in e) excl[e[i]] = 1
  split(forbidden, e, /[ \n]+/); for (i in e) forbid[e[i]] = 1
  # An operator lock: what the kind has is chosen already and printed by
  # the caller from its own lock, pinned as it is there.
  operator = seeded != ""
  k = split(seeded, w, /[ \n]+/); for (i = 1; i <= k; i++) if (w[i] != "") { chosen[w[i]] = 1; seed[w[i]] = 1 }
  k = split(wanted, w, /[ \n]+/); for (i = 1; i <= k; i++) choose(w[i], "")
  for (q = 0; q < n; q++) {
    current = queue[q]
    cmd = "apt-cache " apt " depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances " queue[q]
    alts = 0; more = 0
    while ((cmd | getline line) > 0) {
      if (line ~ /^ [ |](Pre)?Depends: /) {
        if (!more) settle()
        more = (line ~ /^ \|/)
        name = line; sub(/^ [ |](Pre)?Depends: /, "", name)
        # A virtual package: its providers are the lines that follow.
        alt[alts++] = (name ~ /^</) ? "" : name
      } else if (line ~ /^    [^ ]/) {
        sub(/^ +/, "", line); alt[alts - 1] = alt[alts - 1] " " line
      }
    }
    close(cmd)
    settle()
  }
  if (refused) exit 1
  for (p in chosen) if (!(p in seed)) print p
}' >"$tmp/names" || exit 1
LC_ALL=C sort "$tmp/names" | sed 's/$/ - -/' >"$tmp/lock"

# debian-root.sh's --update-lock reads the names and pins each one; the
# lock is replaced only once all are pinned. An operator's lock keeps
# FROM's lines as they are.
"$top/scripts/debian-root.sh" "$kind" "$tmp/context" --arch "$arch" --update-lock --only-lock --lock "$tmp/lock"
if [ -n "$with" ]; then
  step "$(grep -c . "$tmp/lock") packages added to the $(grep -c . "$from") of ${from#"$top"/}: $(cut -d' ' -f1 "$tmp/lock" | paste -sd' ' -)"
  cat "$from" "$tmp/lock" | LC_ALL=C sort -o "$tmp/lock"
fi
# cat, not mv: the lock keeps its mode (mktemp makes files 0600).
cat "$tmp/lock" >"$lock"
step "$(grep -c . "$lock") packages pinned in $lock"
