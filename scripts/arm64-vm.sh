#!/bin/sh
# A linux/arm64 Docker engine on this amd64 machine, for tests and CI: Debian
# 12's arm64 kernel and docker.io under qemu-system-aarch64 (TCG emulation).
#
#   scripts/arm64-vm.sh start STATEDIR [PORT]  prepare once, boot, wait until the
#                                              engine answers; print its DOCKER_HOST
#   scripts/arm64-vm.sh stop STATEDIR          stop the VM, keep the cache
#
# Why it is built this way:
# - Nothing can be pulled and only Debian's mirror is reachable, so the guest is
#   Debian's arm64 .debs, fetched with a private apt state under STATEDIR (the
#   machine's dpkg architectures, binfmt handlers and apt lists stay as they
#   are), and unpacked with dpkg-deb -x: no debootstrap, whose second stage
#   would run every maintainer script under emulation.
# - The root is an uncompressed initramfs (-initrd), so no block or file system
#   driver is needed and the kernel does not spend emulated time inflating it.
#   Only the binaries dockerd runs and the modules it needs go in.
# - /init is a small static Go program (scripts/arm64-vm/init.go, built with
#   GOARCH=arm64): it mounts cgroup v2 and the rest, loads the modules, sets up
#   eth0 and runs dockerd. No systemd, no shell, nothing else to boot.
# - qemu's user network with restrict=on: the guest reaches nothing; the
#   engine's port 2375 is forwarded from 127.0.0.1:PORT only.
# - Downloads and the built kernel/initramfs are cached in STATEDIR; they are
#   rebuilt only when this script or init.go changes.
set -eu

usage() { echo "usage: $0 start STATEDIR [PORT] | stop STATEDIR" >&2; exit 2; }
log() { echo "arm64-vm: $*" >&2; }
die() { log "$*"; exit 1; }
[ $# -ge 2 ] || usage
cmd=$1 port=${3:-23750}
mkdir -p "$2"
S=$(cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)

running() { [ -f "$S/qemu.pid" ] && kill -0 "$(cat "$S/qemu.pid")" 2>/dev/null; }

stop() {
  running || { rm -f "$S/qemu.pid"; return 0; }
  pid=$(cat "$S/qemu.pid")
  kill "$pid"
  i=0
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  rm -f "$S/qemu.pid"
  log "stopped (pid $pid)"
}

# Host tools: installed from Debian when missing (root only).
need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "$1 is missing: apt-get install $2"
  log "installing $2 for $1"
  { apt-get install -y -q --no-install-recommends "$2" || { apt-get update -q && apt-get install -y -q --no-install-recommends "$2"; }; } >&2
}

# apt for arm64: the images' own private state (debian-apt.sh), from the
# machine's sources; the guest's .debs are kept under STATEDIR.
A=$S/apt
. "$here/debian-apt.sh"
# dockerd and what it runs (containerd, runc, tini as docker-init,
# apparmor_parser for the docker-default profile), with the shared libraries they link.
pkgs="docker.io containerd runc tini apparmor libapparmor1 libc6 libgcc-s1 libseccomp2 libdevmapper1.02.1
  libselinux1 libpcre2-8-0 libudev1 libsystemd0 libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1"
# Modules Debian builds as =m that the VM needs: virtio PCI and net, Docker's
# overlay2, bridge and veth; br_netfilter so `docker info` has no warning.
mods_wanted="virtio_pci virtio_net overlay bridge veth br_netfilter"

fetch() {
  rm -rf "$A/debs" && mkdir -p "$A/debs"
  debian_arch arm64
  # Fresh lists: the kernel package is whatever linux-image-arm64 names now.
  # shellcheck disable=SC2086
  apt-get $apt_opts update -qq >&2
  # shellcheck disable=SC2086
  kpkg=$(apt-cache $apt_opts depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
  [ -n "$kpkg" ] || die "no arm64 kernel package found"
  # shellcheck disable=SC2086
  (cd "$A/debs" && apt-get $apt_opts download -qq $pkgs "$kpkg" >&2)
  touch "$A/debs/done"
}

prepare() {
  if [ ! -f "$A/debs/done" ]; then
    log "downloading arm64 packages"
    fetch
  fi
  # Rebuilt when this script or init.go changes (by content, not mtime).
  key=$(cat "$0" "$here/arm64-vm/init.go" | cksum)
  [ -f "$S/initrd" ] && [ "$(cat "$S/initrd.key" 2>/dev/null)" = "$key" ] && return 0
  log "building the root"
  need cpio cpio
  R=$S/root K=$S/kernel
  rm -rf "$R" "$K" && mkdir -p "$R" "$K"
  for d in "$A"/debs/*.deb; do
    case ${d##*/} in linux-image-*) dpkg-deb -x "$d" "$K" ;; *) dpkg-deb -x "$d" "$R" ;; esac
  done
  # Only what runs in the guest: no docs, no docker CLI or debugging tools.
  rm -rf "$R/usr/share/doc" "$R/usr/share/man" "$R/usr/share/locale" "$R/usr/share/lintian" \
    "$R/usr/bin/docker" "$R/usr/bin/ctr" "$R/usr/bin/dnet" "$R/usr/sbin/ovrouter" \
    "$R/usr/bin/containerd-shim" "$R/usr/bin/containerd-shim-runc-v1" "$R/etc/init.d" "$R/lib/systemd"
  kver=$(ls "$K/lib/modules")
  cp "$K/boot/vmlinuz-$kver" "$S/vmlinuz.new"
  # The modules and, from each one's .modinfo depends=, theirs.
  M=$K/lib/modules/$kver want=$mods_wanted got=""
  while [ -n "$want" ]; do
    # shellcheck disable=SC2086
    set -- $want; m=$1; shift; want=$*
    re="/$(echo "$m" | sed 's/[-_]/[-_]/g')\.ko$"
    grep -qE "$re" "$M/modules.builtin" && continue
    f=$(grep -E "$re" "$M/modules.order" | head -1)
    [ -n "$f" ] || die "module $m not in $kver"
    case " $got " in *" $f "*) continue ;; esac
    got="$got $f"
    want="$want $(LC_ALL=C tr '\0' '\n' <"$M/$f" | sed -n 's/^depends=//p' | tr , ' ')"
  done
  for f in $got; do
    mkdir -p "$R/lib/modules/$kver/$(dirname "$f")"
    cp "$M/$f" "$R/lib/modules/$kver/$f"
    echo "/lib/modules/$kver/$f"
  done >"$R/etc/vm-modules"
  # Built alone, with a go.mod of its own: the repository's module and
  # toolchain line play no part. Static, for a root with no loader of its own.
  command -v go >/dev/null || PATH=$PATH:/usr/local/go/bin
  rm -rf "$S/init-build" && mkdir -p "$S/init-build" && cp "$here/arm64-vm/init.go" "$S/init-build/"
  printf 'module arm64vminit\n\ngo 1.21\n' >"$S/init-build/go.mod"
  (cd "$S/init-build" && CGO_ENABLED=0 GOOS=linux GOARCH=arm64 GOFLAGS='' go build -trimpath -ldflags=-s -o "$R/init" init.go)
  mkdir -p "$R/root" "$R/var/lib/docker" "$R/etc/docker"
  ln -sfn /run "$R/var/run"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$R/etc/passwd"
  printf 'root:x:0:\ndocker:x:999:\nnogroup:x:65534:\n' >"$R/etc/group"
  printf '127.0.0.1 localhost arm64-vm\n::1 localhost ip6-localhost ip6-loopback\n' >"$R/etc/hosts"
  : >"$R/etc/resolv.conf"
  printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n' >"$R/usr/lib/os-release"
  # iptables is left out: the guest's containers run with --network none.
  # --tls=false says the plain TCP API is meant (it is on qemu's loopback
  # forward only), which spares dockerd's 15 s warning pause.
  echo "--iptables=false --ip6tables=false --tls=false" >"$R/etc/dockerd-args"
  (cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$S/initrd.new"
  mv "$S/vmlinuz.new" "$S/vmlinuz" && mv "$S/initrd.new" "$S/initrd"
  echo "$kver" >"$S/kernel.version"
  echo "$key" >"$S/initrd.key"
  rm -rf "$R" "$K" "$S/init-build" # the initrd holds it all
  log "root built: $(du -h "$S/initrd" | cut -f1) initramfs, kernel $kver"
}

start() {
  running && die "already running (pid $(cat "$S/qemu.pid")); stop it first"
  t0=$(date +%s)
  prepare
  need qemu-system-aarch64 qemu-system-arm
  command -v docker >/dev/null || die "the docker CLI is needed to check the engine"
  log "booting (console: $S/console.log)"
  : >"$S/console.log"
  # -cpu max with pauth-impdef: all of ARMv8's features but a cheap pointer
  # authentication hash (the architected one is slow under TCG). -nodefaults:
  # no default NIC without restrict=on. panic=-1 with -no-reboot: a panic ends qemu.
  # romfile= (none): the kernel is booted directly, so the NIC needs no boot
  # ROM, and ipxe-qemu, which holds it, is not installed (no recommends).
  qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -smp 2 -m 4G -accel tcg,thread=multi \
    -nodefaults -display none -monitor none -serial "file:$S/console.log" -no-reboot \
    -daemonize -pidfile "$S/qemu.pid" \
    -kernel "$S/vmlinuz" -initrd "$S/initrd" -append "console=ttyAMA0 rdinit=/init panic=-1 loglevel=4" \
    -netdev "user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:2375" -device virtio-net-pci,netdev=net0,romfile=
  t1=$(date +%s)
  while :; do
    # timeout: qemu accepts on the host side before the guest listens.
    arch=$(timeout 20 docker -H "tcp://127.0.0.1:$port" version --format '{{.Server.Arch}}' 2>/dev/null || true)
    [ "$arch" = arm64 ] && break
    now=$(date +%s)
    if ! running || [ $((now - t1)) -ge 900 ]; then
      running && msg="no engine after 15 minutes" || msg="qemu exited"
      log "$msg; the console's last lines:"
      tail -n 40 "$S/console.log" | sed "s/$(printf '\033')\[[0-9;]*m//g" >&2
      stop
      exit 1
    fi
    sleep 2
  done
  log "engine up: $(($(date +%s) - t1)) s after boot, $(($(date +%s) - t0)) s in all"
  echo "tcp://127.0.0.1:$port"
}

case $cmd in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
