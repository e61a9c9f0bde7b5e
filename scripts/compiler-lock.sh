#!/bin/sh
# Renews isolation/KIND.ARCH.lock for a compiler's image (c, cpp, java): the
# packages of its compiler and what they need to compile, link and run a
# program, resolved from the Debian packages' own dependencies and pinned
# at the mirror's current versions with their SHA-256:
# scripts/debian-lock.sh.
#
# Usage: scripts/compiler-lock.sh KIND [--arch ARCH] [--lock FILE]
#   ARCH is amd64 or arm64, this machine's by default
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
    *) kind="" ;;
  esac
  shift 2
done
[ $# -eq 0 ] || kind=""
lock=${lock:-$top/isolation/$kind.$arch.lock}

# What no image may hold, with all it alone would bring in: a shell or a
# package manager and what they need (dash, bash, dpkg, apt, debconf,
# perl, install-info, tar), init bits (sysvinit-utils, lsb-base,
# init-system-helpers, systemd).
excluded="dash bash dpkg apt debconf cdebconf perl perl-base perl-modules-5.36
libperl5.36 install-info tar sysvinit-utils lsb-base init-system-helpers systemd"
# What gcc's dependencies bring that compiling and linking a program with
# the image's command never loads: libcc1-0 (gdb's compile plugin), the
# sanitizers' runtimes (-fsanitize), libitm1 (-fgnu-tm), libc-dev-bin
# (ldd, a bash script, and tools around the C library), Sun RPC's headers
# and rpcgen (libnsl-dev, libtirpc-dev, rpcsvc-proto), binutils' profiler
# gprofng (libgprofng0; compiler-root.sh removes its programs).
gcc_unused="libcc1-0 libasan8 liblsan0 libtsan2 libubsan1 libhwasan0 libitm1 libgprofng0
libc-dev-bin libnsl-dev libtirpc-dev rpcsvc-proto"

case $kind in
  # libc6-dev is only a Recommends of gcc-12; without it nothing links.
  c) wanted="gcc-12 libc6-dev" excluded="$excluded $gcc_unused" ;;
  cpp) wanted="g++-12 libc6-dev" excluded="$excluded $gcc_unused" ;;
  # The JDK's dependencies that a headless program run from the command
  # line never loads, all of them for java.desktop or optional providers,
  # loaded only when used: printing (libcups2), fonts, color and images
  # (libfontconfig1, libfreetype6, libharfbuzz0b, liblcms2-2,
  # libjpeg62-turbo), sound (libasound2), smart cards (libpcsclite1),
  # NSS's PKCS#11 provider (libnss3, not configured by default); and
  # ca-certificates-java (a keystore its maintainer script would make by
  # running java; there is no network to trust anyone on), java-common
  # (update-java-alternatives, a script), util-linux.
  java) wanted="openjdk-17-jdk-headless openjdk-17-jre-headless"
    excluded="$excluded libcups2 libfontconfig1 libfreetype6 libharfbuzz0b liblcms2-2
libjpeg62-turbo libasound2 libpcsclite1 libnss3 ca-certificates-java java-common util-linux" ;;
  *) echo "usage: scripts/compiler-lock.sh c|cpp|java [--arch ARCH] [--lock FILE]" >&2; exit 2 ;;
esac

"$top/scripts/debian-lock.sh" "$kind" "$arch" "$lock" "$wanted" "$excluded"
