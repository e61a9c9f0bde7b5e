#!/bin/sh
# Renews isolation/science.ARCH.lock: the packages of the scientific Python
# image, resolved from the Debian packages' own dependencies (Depends and
# Pre-Depends, recursively, as apt would install them without
# recommends), then pinned at the mirror's current versions with their
# SHA-256: scripts/debian-lock.sh.
#
# Usage: scripts/science-lock.sh [--arch ARCH] [--lock FILE]
#   ARCH is amd64 or arm64, this machine's by default
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
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
[ $# -eq 0 ] || { echo "usage: scripts/science-lock.sh [--arch ARCH] [--lock FILE]" >&2; exit 2; }
lock=${lock:-$top/isolation/science.$arch.lock}

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

"$top/scripts/debian-lock.sh" science "$arch" "$lock" "$wanted" "$excluded"
