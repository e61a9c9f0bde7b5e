#!/bin/sh
# Measures a run under the pinned gVisor: rounds of three runs in random
# order, (a) `synapse-isolation run --runtime runsc --code '1+2'`, (b) a
# bare `docker run` of the argv that `synapse-isolation argv --runtime
# runsc` prints, fed the same request, (c) the same `run` under the
# engine's default runtime, runc; medians and the median paired ratios
# a/b (the supervisor's share under runsc) and a/c (runsc against runc).
#
# Usage: scripts/bench/runsc.sh [ROUNDS]   (default 20)
#
# With DOCKER_HOST set it measures that engine, which must have the
# pinned runsc registered as runsc (with --network=none). Otherwise it
# starts, as root, a private dockerd as the test suite's second engine
# does: its own socket, data root, exec root, pidfile, cgroup parent,
# config and bridge (created and deleted with ip link; never --bridge
# none, with which dockerd deletes the machine's docker0), and the
# pinned runsc from scripts/runsc.sh; the image is built on the
# machine's engine and moved by docker save | docker load.
set -eu
rounds=${1:-20}
cd "$(dirname "$0")/../.."
unset DOCKER_CONTEXT
work=$(mktemp -d)
# The private engine, if one is started: its directory must be reachable
# by nobody, as runsc's sandbox runs as nobody.
engine="" dockerd_pid="" bridge="" cgroup=""
cleanup() {
  if [ -n "$dockerd_pid" ]; then
    ids=$(docker --host "unix://$engine/docker.sock" ps --all --quiet 2>/dev/null || true)
    [ -z "$ids" ] || docker --host "unix://$engine/docker.sock" rm --force $ids >/dev/null 2>&1 || true
    kill -TERM "$dockerd_pid" 2>/dev/null || true
    i=0
    while kill -0 "$dockerd_pid" 2>/dev/null && [ "$i" -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
    # Its managed containerd shares its process group.
    kill -KILL -- "-$dockerd_pid" 2>/dev/null || true
  fi
  if [ -n "$engine" ]; then
    # Innermost first.
    awk -v d="$engine/" 'index($2, d) == 1 { print $2 }' /proc/self/mounts | sort -r | while read -r m; do
      umount -l "$m" 2>/dev/null || true
    done
    [ -z "$bridge" ] || ip link delete "$bridge" 2>/dev/null || true
    for d in /sys/fs/cgroup/*/"$cgroup"; do [ ! -d "$d" ] || rmdir "$d" 2>/dev/null || true; done
    rm -rf "$engine"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

go build -o "$work/synapse-isolation" .
tool=$work/synapse-isolation
image=$(scripts/build-image.sh)
if [ -n "${DOCKER_HOST:-}" ]; then
  runsc="(the engine's)"
  echo "engine: DOCKER_HOST=$DOCKER_HOST" >&2
else
  [ "$(id -u)" = 0 ] || { echo "starting a private dockerd needs root (or set DOCKER_HOST to an engine with runsc)" >&2; exit 1; }
  runsc=$(scripts/runsc.sh)
  engine=$(mktemp -d /tmp/synapse-bench-dockerd-XXXXXX)
  chmod 755 "$engine"
  id=$(($$ % 100000))
  bridge=synbench$id cgroup=synapse-bench-$id
  # A /24 of 10.214/16 picked by pid, beside the suite's 10.213/16.
  subnet=10.214.$(($$ % 250 + 1))
  ip link add "$bridge" type bridge
  ip addr add "$subnet.1/24" dev "$bridge"
  ip link set "$bridge" up
  printf '{"runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--network=none"]}}}\n' "$runsc" >"$engine/daemon.json"
  # setsid: dockerd leads a process group of its own (its containerd
  # joins it), so cleanup can end the group by dockerd's pid.
  setsid dockerd --host "unix://$engine/docker.sock" --data-root "$engine/data" --exec-root "$engine/exec" \
    --pidfile "$engine/docker.pid" --config-file "$engine/daemon.json" --bridge "$bridge" \
    --iptables=false --ip-masq=false --cgroup-parent "$cgroup" --storage-driver vfs \
    >"$engine/dockerd.log" 2>&1 &
  dockerd_pid=$!
  i=0
  until docker --host "unix://$engine/docker.sock" version >/dev/null 2>&1; do
    kill -0 "$dockerd_pid" 2>/dev/null && [ "$i" -lt 300 ] || { tail -20 "$engine/dockerd.log" >&2; echo "dockerd did not start" >&2; exit 1; }
    sleep 0.2
    i=$((i + 1))
  done
  docker save "$image" | docker --host "unix://$engine/docker.sock" load --quiet >/dev/null
  export DOCKER_HOST="unix://$engine/docker.sock"
fi
request='{"source":"1+2"}'
now() { date +%s%N; }

# run_tool FILE [RUNTIME]: times `run`, appends ms to FILE if the verdict
# is ok, otherwise counts the failure and keeps its first message.
run_tool() {
  out=$work/out
  start=$(now)
  rc=0
  "$tool" run ${2:+--runtime "$2"} --image "$image" --code '1+2' >"$out" 2>"$work/err" || rc=$?
  end=$(now)
  if [ "$rc" = 0 ] && grep -q '"verdict":"ok"' "$out"; then
    echo $(((end - start) / 1000)) >>"$1"
    echo ok
  else
    echo "exit $rc" >>"$1.fail"
    [ -s "$1.why" ] || { echo "exit $rc: $(head -c 300 "$work/err")" >"$1.why"; }
    echo fail
  fi
}

# run_bare FILE I: times a bare docker run of the tool's argv for runsc,
# fed the request; ok if the response carries the result.
run_bare() {
  "$tool" argv --format lines --runtime runsc --image "$image" --name "synapse-iso-bench-runsc-$$-$2" >"$work/argv"
  set --
  while IFS= read -r a; do set -- "$@" "$a"; done <"$work/argv"
  start=$(now)
  rc=0
  printf '%s' "$request" | "$@" >"$work/out" 2>"$work/err" || rc=$?
  end=$(now)
  if [ "$rc" = 0 ] && grep -q '"result":3' "$work/out"; then
    echo $(((end - start) / 1000)) >>"$work/b"
    echo ok
  else
    echo "exit $rc" >>"$work/b.fail"
    [ -s "$work/b.why" ] || { echo "exit $rc: $(head -c 300 "$work/err")" >"$work/b.why"; }
    echo fail
  fi
}

# One round of each, not counted: caches and the engine warm up.
run_tool "$work/warm" runsc >/dev/null
run_bare "$work/warm" 0 >/dev/null
run_tool "$work/warm" >/dev/null
rm -f "$work/b" "$work/b.fail" "$work/b.why"

: >"$work/pairs"
for i in $(seq 1 "$rounds"); do
  a="" b="" c=""
  for which in $(printf 'a\nb\nc\n' | shuf); do
    case $which in
    a) a=$(run_tool "$work/a" runsc) ;;
    b) b=$(run_bare "$work/b" "$i") ;;
    c) c=$(run_tool "$work/c") ;;
    esac
  done
  # A round's ratios need all three of it; each file's last line is this round's.
  if [ "$a$b$c" = okokok ]; then
    echo "$(tail -1 "$work/a") $(tail -1 "$work/b") $(tail -1 "$work/c")" >>"$work/pairs"
  fi
done

# median FILE [COLUMN-EXPR]: median of the numbers, as ms with one decimal.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "n/a"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.*f", p, m }' p="${1:-1}"
}
range() {
  sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) printf " (min %.*f, max %.*f)", p, lo, p, hi }' p="${1:-1}"
}
line() { # LABEL FILE
  ok=$( [ -f "$2" ] && wc -l <"$2" || echo 0)
  fail=$( [ -f "$2.fail" ] && wc -l <"$2.fail" || echo 0)
  if [ "$ok" -gt 0 ]; then
    printf '%-36s median %s ms%s, %d ok' "$1" "$(awk '{ print $1 / 1000 }' "$2" | median)" "$(awk '{ print $1 / 1000 }' "$2" | range)" "$ok"
  else
    printf '%-36s no ok run' "$1"
  fi
  [ "$fail" = 0 ] && echo || echo ", $fail failed, first: $(cat "$2.why")"
}
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  machine: $(nproc) cores, $(uname -r), docker $(docker version --format '{{.Server.Version}}')"
echo "image: $image  runsc: $runsc${engine:+ ($("$runsc" --version | head -1))}"
echo "rounds: $rounds (each in random order), request $request"
line "(a) run --runtime runsc" "$work/a"
line "(b) bare docker run, runsc argv" "$work/b"
line "(c) run, runc" "$work/c"
pairs=$(wc -l <"$work/pairs")
if [ "$pairs" -gt 0 ]; then
  echo "paired ratio a/b (supervisor's share)  median $(awk '{ print $1 / $2 }' "$work/pairs" | median 3)$(awk '{ print $1 / $2 }' "$work/pairs" | range 3), $pairs rounds"
  echo "paired ratio a/c (runsc / runc)        median $(awk '{ print $1 / $3 }' "$work/pairs" | median 3)$(awk '{ print $1 / $3 }' "$work/pairs" | range 3), $pairs rounds"
else
  echo "paired ratios: no round had all three runs ok"
fi
