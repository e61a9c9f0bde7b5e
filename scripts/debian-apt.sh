# Sourced by the scripts that fetch Debian packages for an image (sh has
# no imports): apt for the image's architecture, which may not be this
# machine's, and a way to run the image's own programs at build time.
#
#   debian_arch ARCH  sets $apt_opts, the options that point apt-get and
#                     apt-cache at ARCH's packages, and $run_prefix, what
#                     runs one of ARCH's programs here. For this machine's
#                     architecture both are empty: its own apt and CPU.
#                     For another, a private apt state under the user's
#                     cache (the machine's sources, lists of ARCH alone,
#                     fetched once) and qemu-user from Debian's
#                     qemu-user-static package, unpacked there, never
#                     installed: the machine's dpkg architectures and
#                     binfmt handlers stay as they are.
#                     It also sets $resolve_opts, what apt-cache adds when
#                     it resolves or pins a lock: an empty dpkg status, so
#                     the packages this machine has installed (another
#                     vendor's nodejs, a newer backport) never decide a
#                     candidate; only the mirror's lists do.
#   debian_triplet ARCH  prints ARCH's multiarch triplet and loader
#                     (x86_64-linux-gnu /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2).

debian_triplet() {
  case $1 in
    amd64) echo "x86_64-linux-gnu /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ;;
    arm64) echo "aarch64-linux-gnu /lib/aarch64-linux-gnu/ld-linux-aarch64.so.1" ;;
    *) echo "unsupported architecture $1 (amd64, arm64)" >&2; return 1 ;;
  esac
}

debian_arch() {
  debian_triplet "$1" >/dev/null || return 1
  apt_opts=""
  run_prefix=""
  cache=${SYNAPSE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/synapse-isolation}/debian-$1
  mkdir -p "$cache"
  : >"$cache/empty-status"
  resolve_opts="-o Dir::State::status=$cache/empty-status"
  [ "$1" != "$(dpkg --print-architecture)" ] || return 0
  mkdir -p "$cache/state/lists/partial" "$cache/archives/partial"
  : >>"$cache/status"
  apt_opts="-o APT::Architecture=$1 -o APT::Architectures=$1 -o Dir::State=$cache/state
    -o Dir::State::status=$cache/status -o Dir::Cache=$cache -o Dir::Cache::archives=$cache/archives
    -o APT::Sandbox::User=root -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null"
  # The lists once; debian-root.sh renews them when a pinned version has
  # gone from them.
  if [ -z "$(find "$cache/state/lists" -name '*Packages*')" ]; then
    echo "debian: fetching the package lists of $1" >&2
    # shellcheck disable=SC2086
    apt-get $apt_opts update -qq >/dev/null || { echo "debian: apt-get update for $1 failed" >&2; return 1; }
  fi
  qemu=$cache/qemu/usr/bin/qemu-$(debian_triplet "$1" | cut -d- -f1)-static
  if [ ! -x "$qemu" ]; then
    echo "debian: unpacking qemu-user-static to run $1's programs here" >&2
    rm -rf "$cache/qemu" && mkdir -p "$cache/qemu"
    (cd "$cache/qemu" && apt-get download -q qemu-user-static >/dev/null 2>&1) ||
      { apt-get update -qq >/dev/null 2>&1; (cd "$cache/qemu" && apt-get download -q qemu-user-static >/dev/null); } ||
      { echo "debian: cannot fetch qemu-user-static" >&2; return 1; }
    dpkg-deb -x "$cache/qemu"/qemu-user-static_*.deb "$cache/qemu"
  fi
  # shellcheck disable=SC2034 # read by the script that sourced this one
  run_prefix=$qemu
}
