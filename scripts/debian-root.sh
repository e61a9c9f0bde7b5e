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
#                  isolation/container/images/KIND/ARCH.lock
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
lock=${lock:-$top/isolation/container/images/$kind/$arch.lock}
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

# No image holds a shell, a multi-call binary or perl, whatever its lock
# says: an operator's lock may be edited by hand, and --with takes any of
# Debian's packages. Refused are the command shells, which read command
# lines and start programs by them: the Bourne family (sh, dash, bash, ksh,
# mksh, posh, yash, zsh, klibc's sh), the C shells (csh, tcsh), fish, rc
# and sash; the multi-call binaries that bundle a shell or the tools
# around one (busybox, toybox); and perl, the command language of Debian's
# own scripts. The interpreter that is an image's purpose (python3.11,
# node, ruby, php, java) runs programs of its language, not command
# lines, and stays, as do the compilers. A package is judged by what it
# brings, not by its name, since a shell ships under many (bash-static,
# zsh5, ksh93, klibc's /usr/lib/klibc/bin/sh). Any one of these refuses
# it, naming it and its file:
#   - it registers a shell as Debian's shells do: a list in
#     /usr/share/debianutils/shells.d, add-shell in a maintainer script,
#     or a Provides of a shell's name (ksh, c-shell, busybox);
#   - a file of it, anywhere in the root and whatever its name or mode
#     (the loader runs any ELF), is an ELF whose strings carry all the
#     words of a family of shells (below): what a shell must know,
#     read with NULs dropped so that wide strings count too;
#   - a file of it that could run (an exec bit or an ELF, itself or the
#     file a link of it names) bears a shell's name, with any suffix
#     (zsh-static, sh.shared).
# A script (#!) is only as able as its interpreter, which is judged
# itself: without one of the above in the root it cannot run.
shell_names='sh|r?bash|dash|zsh|ksh|ksh93|mksh|lksh|pdksh|oksh|ash|posh|yash|sash|csh|tcsh|fish|rc|busybox|toybox|perl'
shell_words='a Bourne shell|PS1 PS2 IFS OPTIND getopts readonly
a C shell|breaksw histchars savehist nonomatch
fish|fish_prompt
rc|whatis newpgrp
sash|Stand-alone
busybox|BusyBox
toybox|toybox
perl|PERL5LIB PERL5OPT'
# Each family's words are all in every build of its shells in Debian 12
# (bash, bash-static, dash, zsh, zsh-static, ksh93u+m, mksh, posh, yash,
# klibc-utils; tcsh, csh; fish; rc; sash; busybox, toybox), and not all
# in any file of the kinds' own packages (php has foreach, onintr and
# unsetenv, hence the C shells' rarer words).
refused=""
# refuse PKG WHAT: a line naming PKG (the package that ships /PATH when
# PKG is empty: the owner of PATH, the third argument) and what it brings.
refuse() {
  pkg=$1
  if [ -z "$pkg" ]; then
    pkg=$(while read -r p _ _; do
      [ -n "$p" ] || continue
      dpkg-deb -c "$debs/$p"/*.deb | awk -v f="./$3" '$6 == f { found = 1 } END { exit !found }' && { echo "$p"; break; }
    done <"$lock")
  fi
  echo "$kind image: ${pkg:-a package of $lock}: $2, which no image may hold (a shell, a multi-call binary or perl); take it out of $lock" >&2
  refused=true
}
step "looking for shells in what the packages bring"
while read -r pkg _ _; do
  [ -n "$pkg" ] || continue
  control=$(dpkg-deb -I "$debs/$pkg"/*.deb control preinst postinst 2>/dev/null || true)
  for p in $(printf '%s\n' "$control" | sed -n 's/^Provides://p' | tr ',' '\n' | sed 's/(.*//'); do
    if printf '%s\n' "$p" | grep -Eqx "$shell_names|c-shell"; then
      refuse "$pkg" "it provides $p"
    fi
  done
  if printf '%s\n' "$control" | grep -q '^[^#]*add-shell'; then
    refuse "$pkg" "it registers a shell (add-shell in its maintainer scripts)"
  fi
done <"$lock"
for f in "$rootfs"/usr/share/debianutils/shells.d/*; do
  [ -f "$f" ] || continue
  refuse "" "it registers the shells $(paste -sd' ' "$f") (/${f#"$rootfs"/})" "${f#"$rootfs"/}"
done
# Read once, the whole root: the files with a family's first word, then
# of those the ELFs, each read once more for all the words. A grep with
# no -P would find nothing: it fails the build instead.
echo x | grep -qP 'x\x00{0,3}' || { echo "$kind image: grep -P (PCRE) is needed to look for shells" >&2; exit 1; }
anchors=$(printf '%s\n' "$shell_words" | cut -d'|' -f2 | cut -d' ' -f1 | sed 's/./&\\x00{0,3}/g' | paste -sd'|' -)
all_words=$(printf '%s\n' "$shell_words" | cut -d'|' -f2 | tr ' ' '\n')
LC_ALL=C grep -rlaP "$anchors" "$rootfs" 2>/dev/null | while read -r f; do
  [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
  found=$(tr -d '\000' <"$f" | LC_ALL=C grep -aoF -- "$all_words" | sort -u)
  printf '%s\n' "$shell_words" | while IFS='|' read -r family words; do
    # shellcheck disable=SC2086 # the family's words, split on purpose
    missing=$(printf '%s\n' $words | grep -vxF -- "$found" || true)
    if [ -z "$missing" ]; then
      echo "${f#"$rootfs"/}|$family|$words"
      break
    fi
  done
done >"$ctx/../shells"
while IFS='|' read -r f family words; do
  refuse "" "/$f is $family by its words ($words)" "$f"
done <"$ctx/../shells"
find "$rootfs" \( -type f -o -type l \) -regextype posix-extended -regex ".*/($shell_names)[0-9.]*([.-][^/]*)?" | while read -r f; do
  if [ -x "$f" ] || [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
    echo "${f#"$rootfs"/}"
  fi
done >"$ctx/../shell-names"
while read -r f; do
  refuse "" "/$f bears a shell's name" "$f"
done <"$ctx/../shell-names"
[ -z "$refused" ] || exit 1
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
