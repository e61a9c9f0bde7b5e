#!/bin/sh
# Renews a lock of pinned Debian packages: the packages named in WANTED
# and what they need, resolved from the packages' own dependencies
# (Depends and Pre-Depends, recursively, as apt would install them without
# recommends) but for those named in EXCLUDED and what only they would
# bring in, then pinned at the mirror's current versions with their
# SHA-256 by debian-root.sh's --update-lock. Shared by science-lock.sh
# and compiler-lock.sh, which say what each image wants and leaves out.
#
# Usage: scripts/debian-lock.sh KIND ARCH LOCK WANTED EXCLUDED
#   KIND names the image in messages; ARCH is amd64 or arm64, resolved
#   from that architecture's package lists (debian-apt.sh); WANTED and
#   EXCLUDED are package names separated by spaces or newlines.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 5 ] || { echo "usage: scripts/debian-lock.sh KIND ARCH LOCK WANTED EXCLUDED" >&2; exit 2; }
kind=$1
arch=$2
lock=$3
wanted=$4
excluded=$5
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
awk -v kind="$kind" -v apt="$(echo $apt_opts)" -v wanted="$wanted" -v excluded="$excluded" '
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
