#!/bin/sh
# parallel.sh IMAGE [ROUNDS]: runs/s of 20 requests of `1+2`, in rounds
# that alternate batch --parallel 1, batch at its default --parallel (the
# engine's CPUs) and xargs -P <CPUs> of run, so the three share each
# moment of the machine. Prints one line per round and mode.
set -eu
image=$1 rounds=${2:-5}
cd "$(dirname "$0")/../.."
tool=$(mktemp -d)/synapse-isolation
trap 'rm -rf "$(dirname "$tool")"' EXIT
go build -o "$tool" .
cpus=$(docker info --format '{{.NCPU}}')
lines=$(dirname "$tool")/lines.jsonl
for i in $(seq 1 20); do printf '{"id": %d, "source": "1+2"}\n' "$i"; done >"$lines"
now() { date +%s.%N; }
for r in $(seq 1 "$rounds"); do
  for mode in parallel-1 default "xargs-P$cpus"; do
    start=$(now)
    case $mode in
    parallel-1) "$tool" batch --image "$image" --parallel 1 --input "$lines" >/dev/null 2>&1 || true ;;
    default) "$tool" batch --image "$image" --input "$lines" >/dev/null 2>&1 || true ;;
    *) seq 1 20 | xargs -P "$cpus" -I{} "$tool" run --image "$image" --code '1+2' >/dev/null 2>&1 || true ;;
    esac
    echo "$r $mode $(echo "20 / ($(now) - $start)" | bc -l | cut -c1-5) runs/s"
  done
done
