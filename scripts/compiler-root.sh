#!/bin/sh
# Prepares the build context of a compiler's image in CONTEXT: c (gcc-12),
# cpp (g++-12) or java (openjdk-17's JDK), unpacked from the .debs pinned
# in isolation/KIND.ARCH.lock by debian-root.sh (checked against their SHA-256,
# no maintainer scripts, /tmp 1777, /etc/passwd and /etc/group), less what
# the image's compile and run commands never use, plus the links
# update-alternatives would make, and the image's Dockerfile;
# build-image.sh adds the runner and builds it.
#
# Usage: compiler-root.sh KIND CONTEXT [--arch ARCH] [--update-lock] [--lock FILE]
#   --arch ARCH    amd64 or arm64, this machine's by default
#   --update-lock  resolve and pin the packages anew first (compiler-lock.sh)
#   --lock FILE    read (and with --update-lock write) FILE instead
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=$1
ctx=$2
shift 2
case $kind in
  c|cpp|java) ;;
  *) echo "compiler image: unknown kind $kind (c, cpp, java)" >&2; exit 2 ;;
esac
arch=$(dpkg --print-architecture)
lock=""
update=false
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift ;;
    --update-lock) update=true ;;
    --lock) lock=$2; shift ;;
    *) echo "$kind image: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
lock=${lock:-$top/isolation/$kind.$arch.lock}
step() { echo "$kind image: $*" >&2; }
. "$top/scripts/debian-apt.sh"
triplet=$(debian_triplet "$arch" | cut -d' ' -f1)

if $update; then
  "$top/scripts/compiler-lock.sh" "$kind" --arch "$arch" --lock "$lock"
fi
"$top/scripts/debian-root.sh" "$kind" "$ctx" --arch "$arch" --lock "$lock"
rootfs=$ctx/root

step "removing what the image's commands never use"
if [ "$kind" = java ]; then
  jdk=/usr/lib/jvm/java-17-openjdk-$arch
  [ -x "$rootfs$jdk/bin/javac" ] || { echo "java image: no $jdk/bin/javac" >&2; exit 1; }
  # jmods is jlink's input, a copy of lib/modules in another form: a
  # third of the JDK. The CDS archives (lib/server/classes*.jsa) come in
  # the package, so nothing is generated here.
  rm -rf "$rootfs$jdk/jmods"
  # The links update-alternatives would make, direct, for every tool, so
  # the label's java and javac are found on the engine's default PATH.
  mkdir -p "$rootfs/usr/bin"
  for tool in "$rootfs$jdk"/bin/*; do
    ln -sfn "$jdk/bin/${tool##*/}" "$rootfs/usr/bin/${tool##*/}"
  done
else
  gcc=/usr/lib/gcc/$triplet/12
  [ -x "$rootfs$gcc/cc1" ] || { echo "$kind image: no $gcc/cc1" >&2; exit 1; }
  # Link-time optimisation's compiler and its dump tool, a third of the
  # image: only -flto runs them.
  rm -f "$rootfs$gcc/lto1" "$rootfs/usr/bin/lto-dump-12" "$rootfs/usr/bin/$triplet-lto-dump-12"
  # binutils' gprofng, whose library is not in the lock: its programs
  # could not start, and one is a perl script.
  rm -rf "$rootfs"/usr/bin/*gp-* "$rootfs"/usr/bin/*gprofng "$rootfs/usr/lib/$triplet/gprofng" "$rootfs/etc/gprofng.rc"
  # Messages in other languages: the sandbox sets no locale.
  rm -rf "$rootfs/usr/share/locale"
fi
cp "$top/isolation/$kind.Dockerfile" "$ctx/Dockerfile"
