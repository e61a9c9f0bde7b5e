#!/bin/sh
# Prepares the build context of a compiler's image in CONTEXT: c (gcc-12),
# cpp (g++-12) or java (openjdk-17's JDK), unpacked from the .debs pinned
# in isolation/KIND.lock by debian-root.sh (checked against their SHA-256,
# no maintainer scripts, /tmp 1777, /etc/passwd and /etc/group), less what
# the image's compile and run commands never use, plus the links
# update-alternatives would make, and the image's Dockerfile;
# build-image.sh adds the runner and builds it.
#
# Usage: compiler-root.sh KIND CONTEXT [--update-lock] [--lock FILE]
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
lock=$top/isolation/$kind.lock
update=false
while [ $# -gt 0 ]; do
  case $1 in
    --update-lock) update=true ;;
    --lock) lock=$2; shift ;;
    *) echo "$kind image: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
step() { echo "$kind image: $*" >&2; }

if $update; then
  "$top/scripts/compiler-lock.sh" "$kind" --lock "$lock"
fi
"$top/scripts/debian-root.sh" "$kind" "$ctx" --lock "$lock"
rootfs=$ctx/root

step "removing what the image's commands never use"
if [ "$kind" = java ]; then
  jdk=/usr/lib/jvm/java-17-openjdk-amd64
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
  gcc=/usr/lib/gcc/x86_64-linux-gnu/12
  [ -x "$rootfs$gcc/cc1" ] || { echo "$kind image: no $gcc/cc1" >&2; exit 1; }
  # Link-time optimisation's compiler and its dump tool, a third of the
  # image: only -flto runs them.
  rm -f "$rootfs$gcc/lto1" "$rootfs/usr/bin/lto-dump-12" "$rootfs/usr/bin/x86_64-linux-gnu-lto-dump-12"
  # binutils' gprofng, whose library is not in the lock: its programs
  # could not start, and one is a perl script.
  rm -rf "$rootfs"/usr/bin/*gp-* "$rootfs"/usr/bin/*gprofng "$rootfs/usr/lib/x86_64-linux-gnu/gprofng" "$rootfs/etc/gprofng.rc"
  # Messages in other languages: the sandbox sets no locale.
  rm -rf "$rootfs/usr/share/locale"
fi
cp "$top/isolation/$kind.Dockerfile" "$ctx/Dockerfile"
