#!/bin/sh
# Soak: N runs of a mix of outcomes, P at a time, each checked for its exit
# status: ok, program error, output flood, timeout, OOM by string growth, by
# list growth and in an exec-mode child, and a supervisor killed with
# SIGKILL mid-run. Then a plain `gc` once the killed runs' deadlines have
# passed, and the engine must list no container with the tool's labels.
# Prints the wrong exit statuses, the containers left and the supervisor's
# peak RSS. Usage: scripts/soak.sh [N] [P]
set -eu
cd "$(dirname "$0")/.."
n=${1:-100}
p=${2:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
go build -o "$work/synapse-isolation" .
image=$(scripts/build-image.sh)
probe=$(scripts/build-probe-image.sh)

cat > "$work/one" <<'SH'
#!/bin/sh
# one I: run case I mod 8 and check its exit status; print a line on a
# wrong one, and the supervisor's peak RSS in KiB to rss.
dir=$(dirname "$0")
tool=$dir/synapse-isolation
kind=$(($1 % 8))
img=$IMAGE
case $kind in
  0) want=0;   set -- --code '1+2' ;;
  1) want=1;   set -- --code '1 // 0' ;;
  2) want=0;   set -- --code 'for i in range(5000):
  print("x" * 100)' ;;
  3) want=124; set -- --timeout 1s --code 'while True:
  pass' ;;
  4) want=137; set -- --memory 64m --code 'x = "x" * (512 << 20)' ;;
  5) want=137; set -- --memory 64m --code 'l = []
while True:
  l.append("y" * 1000)' ;;
  6) want=137; img=$PROBE; set -- --memory 64m --code alloc -- /probe ;;
  7) want=killed; set -- --timeout 2s --code 'while True:
  pass' ;;
esac
if [ "$kind" = 7 ]; then
  "$tool" run --image "$img" "$@" >/dev/null 2>&1 &
  pid=$!
  sleep 0.5
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  exit 0
fi
/usr/bin/time -f %M -o "$dir/rss.$1" "$tool" run --image "$img" "$@" >/dev/null 2>&1 && got=0 || got=$?
if [ "$got" != "$want" ]; then echo "run $1 (case $kind): exit $got, want $want"; exit 1; fi
SH
chmod +x "$work/one"

start=$(date +%s)
seq "$n" | IMAGE=$image PROBE=$probe xargs -P "$p" -n 1 "$work/one" > "$work/wrong" 2>&1 || true
took=$(($(date +%s) - start))
# Supervisors killed outright leave their containers to the runner's own
# deadline and to gc: wait past the last deadline and gc's grace, then gc.
sleep 8
"$work/synapse-isolation" gc > "$work/gc" 2>&1 || true
left=$(docker ps --all --quiet --filter label=io.synapse-isolation.run-id | wc -l)
wrong=$(grep -c '^run ' "$work/wrong" || true)
rss=$(cat "$work"/rss.* 2>/dev/null | sort -n | tail -1)
cat "$work/wrong"
echo "soak: $n runs, $p at a time, ${took}s; wrong exit statuses: $wrong; gc removed: $(grep -c '^removed' "$work/gc" || true); containers left: $left; largest peak RSS in a run's process tree (GNU time %M: the docker client, whose rusage the supervisor collects): ${rss} KiB"
docker rmi -f "$probe" > /dev/null
[ "$wrong" = 0 ] && [ "$left" = 0 ]
