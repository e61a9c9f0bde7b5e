#!/bin/sh
# Prepares the build context of a compiler's image in CONTEXT (c, cpp,
# java, go, typescript, rust, and the node, ruby and php interpreters: the
# kinds whose root is compiler in isolation/container/images/kinds): the .debs pinned in
# isolation/container/images/KIND/ARCH.lock unpacked by debian-root.sh (checked
# against their SHA-256, no maintainer scripts, /tmp 1777, /etc/passwd and
# /etc/group), then the steps of isolation/container/images/KIND/root-steps: what
# must be there, what the image's compile and run commands never use, the
# links update-alternatives would make, the trees that are layers of
# their own. build-image.sh adds the Dockerfile and the runner and builds
# it.
#
# Usage: compiler-root.sh KIND CONTEXT [--arch ARCH] [--update-lock] [--lock FILE]
#   --arch ARCH    amd64 or arm64, this machine's by default
#   --update-lock  resolve and pin the packages anew first (debian-lock.sh,
#                  from isolation/container/images/KIND/packages)
#   --lock FILE    read (and with --update-lock write) FILE instead
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=$1
ctx=$2
shift 2
steps=$top/isolation/container/images/$kind/root-steps
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
lock=${lock:-$top/isolation/container/images/$kind/$arch.lock}
step() { echo "$kind image: $*" >&2; }
. "$top/scripts/debian-apt.sh"
triplet=$(debian_triplet "$arch" | cut -d' ' -f1)

if $update; then
  "$top/scripts/debian-lock.sh" "$kind" --arch "$arch" --lock "$lock"
fi
"$top/scripts/debian-root.sh" "$kind" "$ctx" --arch "$arch" --lock "$lock"
rootfs=$ctx/root

[ -f "$steps" ] || exit 0
step "removing what the image's commands never use ($(basename "$steps"))"
# A step's paths are globs: unquoted on purpose, matched in the root.
sed -e '/^[[:space:]]*#/d' -e "s|{arch}|$arch|g" -e "s|{triplet}|$triplet|g" "$steps" | while read -r verb path dir; do
  case $verb in
    "") ;;
    need)
      [ -x "$rootfs/$path" ] || { echo "$kind image: no /$path" >&2; exit 1; } ;;
    remove)
      # shellcheck disable=SC2086
      rm -rf "$rootfs"/$path ;;
    link)
      mkdir -p "$rootfs/$dir"
      # shellcheck disable=SC2086
      for f in "$rootfs"/$path; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        ln -sfn "/${f#"$rootfs"/}" "$rootfs/$dir/${f##*/}"
      done ;;
    layer)
      # scripts/reproducible reads each layer whole and refuses one over
      # 256 MiB: a root larger than that moves its biggest trees to
      # CONTEXT/layers/NAME, each COPY'd by the kind's Dockerfile.
      # shellcheck disable=SC2086
      for f in "$rootfs"/$path; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        rel=${f#"$rootfs"/}
        mkdir -p "$ctx/layers/$dir/$(dirname "$rel")"
        mv "$f" "$ctx/layers/$dir/$rel"
      done ;;
    *) echo "$kind image: $steps: unknown step \"$verb\" (need, remove, link, layer)" >&2; exit 1 ;;
  esac
done
