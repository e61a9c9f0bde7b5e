#!/bin/sh
# Renews isolation/science.lock: the packages of the scientific Python
# image, resolved from the Debian packages' own dependencies (Depends and
# Pre-Depends, recursively, as apt would install them without
# recommends), then pinned at the mirror's current versions with their
# SHA-256 by python-root.sh's own --update-lock.
#
# Usage: scripts/science-lock.sh [--lock FILE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
lock=$top/isolation/science.lock
case $#:${1:-} in
  0:) ;;
  2:--lock) lock=$2 ;;
  *) echo "usage: scripts/science-lock.sh [--lock FILE]" >&2; exit 2 ;;
esac
step() { echo "science lock: $*" >&2; }

# What the image is for. libopenblas0-pthread comes first so that the
# "libblas3 | libblas.so.3" and "liblapack3 | liblapack.so.3"
# dependencies of numpy and scipy find it already chosen: BLAS and LAPACK
# are OpenBLAS's, and the reference libblas3/liblapack3 are not in the
# image at all (science-root.sh makes the links update-alternatives would).
wanted="libopenblas0-pthread python3.11 python3-numpy python3-scipy python3-sympy
python3-pandas python3-matplotlib python3-networkx"

# What must not be in the image, with all it alone would bring in:
# - a shell or a package manager, and what they need: dash, bash, dpkg
#   (python3-minimal's dependency, for its maintainer scripts), apt,
#   debconf, perl (mailcap's, for its scripts), install-info, tar;
# - init bits: sysvinit-utils, lsb-base (init scripts' helpers);
# - python3-pythran: a compiler from Python to C++ that scipy's build
#   used; scipy loads none of it, and it would bring g++, clang and boost;
# - Tk (python3-pil.imagetk, python3-tk): matplotlib's TkAgg backend and
#   PIL's ImageTk need a display, the image has none and draws with Agg;
# - readline-common: /etc/inputrc and an install-info trigger, as the
#   python image leaves it out.
excluded="dash bash dpkg apt debconf cdebconf perl perl-base perl-modules-5.36
libperl5.36 install-info tar sysvinit-utils lsb-base init-system-helpers
systemd python3-pythran python3-pil.imagetk python3-tk readline-common"

step "resolving the dependencies of: $(echo $wanted)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# apt-cache depends lists each dependency of a package on a line, an
# alternative that has others after it marked " |Depends:", a virtual
# package as <name> followed by its providers, indented. A dependency is
# met if one of its alternatives (or their providers) is chosen already;
# otherwise the first alternative that is not excluded is chosen, as apt
# chooses. Packages are chosen as they are found, in a fixed order, so
# the same package lists give the same set.
awk -v wanted="$wanted" -v excluded="$excluded" '
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
  printf "science lock: leaving out %s\n", alt[0] > "/dev/stderr"
  alts = 0
}
BEGIN {
  split(excluded, e, /[ \n]+/); for (i in e) excl[e[i]] = 1
  k = split(wanted, w, /[ \n]+/); for (i = 1; i <= k; i++) choose(w[i])
  for (q = 0; q < n; q++) {
    cmd = "apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances " queue[q]
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

# python-root.sh's --update-lock reads the names and pins each one; the
# lock is replaced only once all are pinned.
"$top/scripts/python-root.sh" "$tmp/context" --update-lock --only-lock --lock "$tmp/lock"
# cat, not mv: the lock keeps its mode (mktemp makes files 0600).
cat "$tmp/lock" >"$lock"
step "$(grep -c . "$lock") packages pinned in $lock"
