#!/bin/sh
# Unpacks the .debs pinned in a lock (one `package version sha256` a line)
# into CONTEXT/root, the root of an image built FROM scratch: each one
# fetched with apt-get download and checked against its SHA-256, unpacked
# with dpkg-deb -x, so no maintainer script ever runs; then docs and man
# pages removed, the dynamic loader's /lib64 link, /tmp 1777, and
# /etc/passwd and /etc/group naming the sandbox user. What an image needs
# beyond that (links update-alternatives would make, precompiled files)
# is its root script's: python-root.sh, science-root.sh, compiler-root.sh.
#
# Usage: debian-root.sh KIND CONTEXT [--arch ARCH] [--update-lock [--only-lock]] [--lock FILE]
#   KIND           names the image in messages; the lock is
#                  isolation/images/KIND/ARCH.lock
#   --arch ARCH    the image's architecture, amd64 or arm64 (this machine's
#                  by default); another's packages come through debian-apt.sh
#   --update-lock  pin the mirror's current versions in the lock first
#   --only-lock    stop once the lock is renewed
#   --lock FILE    read (and with --update-lock write) FILE instead
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kind=$1
ctx=$2
shift 2
arch=$(dpkg --print-architecture)
lock=""
update=false
only=false
while [ $# -gt 0 ]; do
  case $1 in
    --arch) arch=$2; shift ;;
    --update-lock) update=true ;;
    --only-lock) only=true ;;
    --lock) lock=$2; shift ;;
    *) echo "$kind image: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
lock=${lock:-$top/isolation/images/$kind/$arch.lock}
. "$top/scripts/debian-apt.sh"
debian_arch "$arch"
# step TEXT: one line on stderr per step, so the minute this takes is
# not silent; stdout is build-image.sh's, the image ID alone.
step() { echo "$kind image: $*" >&2; }

debs=$ctx/../debs
rootfs=$ctx/root
mkdir -p "$debs" "$rootfs"

# fetch PKG VERSION: downloads the .deb into its own directory. Debian's
# package lists may be missing on a fresh machine: one update, then retry.
updated=false
fetch() {
  mkdir -p "$debs/$1"
  # shellcheck disable=SC2086
  if (cd "$debs/$1" && apt-get $apt_opts download -q "$1=$2" >/dev/null 2>&1); then
    return 0
  fi
  if ! $updated && { [ "$(id -u)" = 0 ] || [ -n "$apt_opts" ]; }; then
    updated=true
    # shellcheck disable=SC2086 # options, split on purpose
    apt-get $apt_opts update -qq >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    (cd "$debs/$1" && apt-get $apt_opts download -q "$1=$2" >/dev/null 2>&1) && return 0
  fi
  return 1
}

# A .deb that matched its lock once, or that a lock was just pinned from,
# is kept in the user's cache by its SHA-256 ($cache/debs, per
# architecture; remove it to reclaim the space): apt-get download costs a
# second or more a package, and a build fetches dozens. A kept copy is
# checked against the lock like a download, and one that fails the check
# is dropped, never used.
kept=$cache/debs
mkdir -p "$kept"
# keep PKG SUM: keeps the .deb fetched for PKG, whose SHA-256 is SUM;
# renamed into place, since builds run side by side (scripts/test.sh).
keep() {
  [ -f "$kept/$2.deb" ] || { cp "$debs/$1"/*.deb "$kept/$2.deb.$$" && mv "$kept/$2.deb.$$" "$kept/$2.deb"; }
}

if $update; then
  step "renewing ${lock#"$top"/} with the mirror's current versions"
  new=$(mktemp)
  while read -r pkg _ _; do
    [ -n "$pkg" ] || continue
    # shellcheck disable=SC2086
    version=$(apt-cache $apt_opts $resolve_opts policy "$pkg" | awk '/Candidate:/ {print $2}')
    if [ -z "$version" ] || [ "$version" = "(none)" ] || ! fetch "$pkg" "$version"; then
      echo "$kind image: $pkg has no version on the mirror" >&2
      exit 1
    fi
    sum=$(sha256sum "$debs/$pkg"/*.deb | cut -d' ' -f1)
    keep "$pkg" "$sum"
    echo "$pkg $version $sum" >>"$new"
  done <"$lock"
  mv "$new" "$lock"
  $only && exit 0
  rm -rf "$debs"
  mkdir -p "$debs"
fi

step "fetching the $(grep -c . "$lock") packages pinned in ${lock#"$top"/} (apt-get download, or the copy kept in $kept; each checked against its SHA-256)"
while read -r pkg version sum; do
  [ -n "$pkg" ] || continue
  if [ -f "$kept/$sum.deb" ]; then
    mkdir -p "$debs/$pkg"
    cp "$kept/$sum.deb" "$debs/$pkg/$pkg.deb"
  elif ! fetch "$pkg" "$version"; then
    echo "$kind image: $pkg $version is not on the mirror any more; renew the lock: scripts/build-image.sh $kind --arch $arch --update-lock" >&2
    exit 1
  fi
  got=$(sha256sum "$debs/$pkg"/*.deb | cut -d' ' -f1)
  if [ "$got" != "$sum" ]; then
    rm -f "$kept/$sum.deb"
    echo "$kind image: $pkg $version has SHA-256 $got, the lock says $sum" >&2
    exit 1
  fi
  keep "$pkg" "$sum"
done <"$lock"
step "unpacking them into the image's root (no maintainer scripts run)"
while read -r pkg _ _; do
  [ -n "$pkg" ] || continue
  dpkg-deb -x "$debs/$pkg"/*.deb "$rootfs"
done <"$lock"

rm -rf "$rootfs/usr/share/doc" "$rootfs/usr/share/man" "$rootfs/usr/share/info" "$rootfs/usr/share/lintian"
# No image holds a shell or perl, whatever its lock says (an operator's
# lock may be edited by hand): a file by such a name on the path fails the
# build, naming it.
for dir in bin sbin usr/bin usr/sbin usr/local/bin; do
  for name in sh bash dash rbash zsh ksh mksh ash busybox tcsh csh fish yash posh sash perl; do
    if [ -e "$rootfs/$dir/$name" ] || [ -L "$rootfs/$dir/$name" ]; then
      echo "$kind image: /$dir/$name is a shell or perl, which no image may hold; take the package that ships it out of $lock" >&2
      exit 1
    fi
  done
done
mkdir -p "$rootfs/tmp"
# The dynamic loader at the path programs name: the libc6 package ships
# it in the triplet's directory, and dpkg's diversions and the link on
# x86_64 come from scripts that never run here.
loader=$(debian_triplet "$arch" | cut -d' ' -f2)
case $arch in
  amd64) mkdir -p "$rootfs/lib64" && ln -sf "$loader" "$rootfs/lib64/ld-linux-x86-64.so.2" ;;
  arm64) [ -e "$rootfs/lib/ld-linux-aarch64.so.1" ] || ln -sf "$loader" "$rootfs/lib/ld-linux-aarch64.so.1" ;;
esac
# Docker keeps an image directory's mode over the tmpfs mounted on it.
chmod 1777 "$rootfs/tmp"
# The sandbox user and root by name, so getpwuid and getgrgid answer as on
# any Debian system (docker also takes HOME from here: /nonexistent).
mkdir -p "$rootfs/etc"
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
