#!/bin/sh
# Memory exhaustion must end as `oom`, fast, every time: N runs of each of
# list growth, string growth (Starlark) and an allocating exec-mode child,
# at 64m and 512m, each checked for exit 137 and timed. Prints, per case,
# how many ended oom and the median and slowest wall time, then the
# evidence each run named. Usage: scripts/oom.sh [N]
set -eu
cd "$(dirname "$0")/.."
n=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
go build -o "$work/synapse-isolation" .
image=$(scripts/build-image.sh)
probe=$(scripts/build-probe-image.sh)
list='l = []
while True:
  l.append("y" * 1000)'
string='x = "x" * (512 << 20)'
for mem in 64m 512m; do
  for kind in list string exec; do
    : > "$work/times"
    ok=0
    i=0
    while [ "$i" -lt "$n" ]; do
      i=$((i + 1))
      start=$(date +%s%N)
      case $kind in
        list) "$work/synapse-isolation" run --image "$image" --memory "$mem" --timeout 30s --code "$list" > "$work/out" 2>/dev/null && code=0 || code=$? ;;
        string) "$work/synapse-isolation" run --image "$image" --memory "$mem" --timeout 30s --code "$string" > "$work/out" 2>/dev/null && code=0 || code=$? ;;
        exec) "$work/synapse-isolation" run --image "$probe" --memory "$mem" --timeout 30s --code alloc -- /probe > "$work/out" 2>/dev/null && code=0 || code=$? ;;
      esac
      end=$(date +%s%N)
      echo $(( (end - start) / 1000000 )) >> "$work/times"
      if [ "$code" = 137 ]; then ok=$((ok + 1)); fi
      sed -n 's/.*(\(runner guard\)).*/\1/p; s/.*(\(cgroup oom_kill counter\) .*/\1/p; s/.*(\(daemon oom event\).*/\1/p' "$work/out" >> "$work/evidence"
    done
    sort -n "$work/times" > "$work/sorted"
    med=$(sed -n "$(( (n + 1) / 2 ))p" "$work/sorted")
    slowest=$(tail -1 "$work/sorted")
    echo "$mem $kind: $ok of $n oom; median ${med} ms, slowest ${slowest} ms"
  done
done
echo "evidence named:"
sort "$work/evidence" | uniq -c
left=$(docker ps -aq --filter label=io.synapse-isolation.run-id | wc -l)
echo "containers left: $left"
docker rmi -f "$probe" > /dev/null
