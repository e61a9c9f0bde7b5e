#!/bin/sh
# Renews isolation/images/KIND/ARCH.lock (or FILE), the Debian packages
# pinned for an image: those that isolation/images/KIND/packages wants
# (its `want` lines, in order) and what they need, resolved from the
# packages' own dependencies (Depends and Pre-Depends, recursively, as apt
# would install them without recommends), but for those it leaves out
# (its `leave` lines, and what no image may hold) and what only they would
# bring in; then pinned at the mirror's current versions with their
# SHA-256 by debian-root.sh's --update-lock. The root scripts run it on
# build-image.sh KIND --update-lock.
#
# Usage: scripts/debian-lock.sh KIND [--arch ARCH] [--lock FILE]
#   ARCH is amd64 or arm64 (this machine's by default), resolved from that
#   architecture's package lists (debian-apt.sh)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:-}
[ $# -eq 0 ] || shift
arch=$(dpkg --print-architecture)
lock=""
while [ $# -gt 1 ]; do
  case $1 in
    --arch) arch=$2 ;;
    --lock) lock=$2 ;;
    *) break ;;
  esac
  shift 2
done
packages=$top/isolation/images/$kind/packages
if [ $# -ne 0 ] || [ -z "$kind" ] || [ ! -f "$packages" ]; then
  echo "usage: scripts/debian-lock.sh KIND [--arch ARCH] [--lock FILE], KIND one whose isolation/images/KIND/packages says what to pin" >&2
  exit 2
fi
lock=${lock:-$top/isolation/images/$kind/$arch.lock}
# field WORD: the packages of the lines that start with WORD, in order.
field() { awk -v w="$1" '$1 == w { for (i = 2; i <= NF; i++) print $i }' "$packages"; }
wanted=$(field want)
# What no image may hold, with all it alone would bring in: a shell or a
# package manager and what they need (dash, bash, dpkg, apt, debconf,
# perl, install-info, tar), init bits (sysvinit-utils, lsb-base,
# init-system-helpers, systemd); then what the kind leaves out.
excluded="dash bash dpkg apt debconf cdebconf perl perl-base perl-modules-5.36
libperl5.36 install-info tar sysvinit-utils lsb-base init-system-helpers systemd
$(field leave)"
[ -n "$wanted" ] || { echo "$kind lock: $packages wants no package" >&2; exit 2; }
. "$top/scripts/debian-apt.sh"
debian_arch "$arch"
step() { echo "$kind lock: $*" >&2; }

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
awk -v kind="$kind" -v apt="$(echo $apt_opts $resolve_opts)" -v wanted="$wanted" -v excluded="$excluded" '
function choose(p) {
  if (p in chosen || p in excl) return
  chosen[p] = 1
  queue[n++] = p
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
    for (j = 1; j <= k; j++) if (!(cands[j] in excl)) { choose(cands[j]); alts = 0; return }
  }
  printf "%s lock: leaving out %s\n", kind, alt[0] > "/dev/stderr"
  alts = 0
}
BEGIN {
  split(excluded, e, /[ \n]+/); for (i in e) excl[e[i]] = 1
  k = split(wanted, w, /[ \n]+/); for (i = 1; i <= k; i++) choose(w[i])
  for (q = 0; q < n; q++) {
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
  for (p in chosen) print p
}' | LC_ALL=C sort | sed 's/$/ - -/' >"$tmp/lock"

# debian-root.sh's --update-lock reads the names and pins each one; the
# lock is replaced only once all are pinned.
"$top/scripts/debian-root.sh" "$kind" "$tmp/context" --arch "$arch" --update-lock --only-lock --lock "$tmp/lock"
# cat, not mv: the lock keeps its mode (mktemp makes files 0600).
cat "$tmp/lock" >"$lock"
step "$(grep -c . "$lock") packages pinned in $lock"
