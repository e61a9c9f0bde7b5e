#!/bin/sh
# Measures the supervisor's share of a run: paired, alternating runs of
# `synapse-isolation run --code '1+2'` and a bare `docker run` with the
# identical argv and request; medians and the median paired ratio; the
# supervisor's peak RSS; the image size. Usage: scripts/bench.sh [PAIRS]
set -eu
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
go build -o "$work/synapse-isolation" .
image=$(scripts/build-image.sh)
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  machine: $(nproc) cores, $(uname -r), docker $(docker version --format '{{.Server.Version}}')"
echo "image: $image, $(docker image inspect --format '{{.Size}}' "$image") bytes"
go run ./scripts/bench -tool "$work/synapse-isolation" -image "$image" -n "${1:-30}"
# batch: warm latency, throughput against bare docker run at 1, 2 and 4 in
# parallel (the same argv, alternating rounds), peak RSS at --parallel 8.
go run ./scripts/bench -tool "$work/synapse-isolation" -image "$image" -batch -n 60
# The seccomp profile: bare docker runs of the argv with the policy's profile
# against the same argv under the engine's default profile.
go run ./scripts/bench -tool "$work/synapse-isolation" -image "$image" -seccomp -n "${1:-30}"
# Python: print(1+2) on the Python image against 1+2 on the Starlark image.
python=$(scripts/build-image.sh python)
echo "python image: $python, $(docker image inspect --format '{{.Size}}' "$python") bytes"
go run ./scripts/bench -tool "$work/synapse-isolation" -image "$image" -python "$python" -n "${1:-30}"
