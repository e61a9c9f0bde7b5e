#!/bin/sh
# Builds the static runner and a runtime image offline on the local engine,
# tags it for humans, and prints only the immutable image ID (sha256:...)
# on stdout: pass that ID to --image. The same source gives the same ID on
# any engine that loads docker-save archives: see scripts/reproducible.
#
# Usage: scripts/build-image.sh                 the reference (Starlark) image
#        scripts/build-image.sh python [--update-lock] [--lock FILE]
#                                               Debian's Python 3 (python-root.sh)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
kind=starlark
if [ $# -gt 0 ]; then
  kind=$1
  shift
fi
case $kind in
  starlark) tag=${SYNAPSE_IMAGE_TAG:-synapse-runtime:local} ;;
  python) tag=${SYNAPSE_IMAGE_TAG:-synapse-python:local} ;;
  *) echo "usage: scripts/build-image.sh [python [--update-lock] [--lock FILE]]" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# Static, path-free, build-id-free: the same source gives the same bytes.
CGO_ENABLED=0 go build -C "$root" -trimpath -buildvcs=false -ldflags='-s -w -buildid=' \
  -o "$work/runner" ./isolation/runner
go build -C "$root" -o "$work/reproducible" ./scripts/reproducible
mkdir "$work/context"
if [ "$kind" = python ]; then
  "$root/scripts/python-root.sh" "$work/context" "$@"
  cp "$work/runner" "$work/context/"
else
  cp "$root/isolation/Dockerfile" "$work/runner" "$work/context/"
fi
# COPY keeps file times in the layer; pin them so the layer is stable.
find "$work/context" -exec touch -h -d @0 {} +

# docker's stderr (a deprecation notice for the legacy builder) is shown
# only if the build fails.
if ! built=$(SOURCE_DATE_EPOCH=0 docker build --quiet --pull=false "$work/context" 2>"$work/build.err"); then
  cat "$work/build.err" >&2
  exit 1
fi
# The builder stamps build times and its build container into the image
# config; rewrite those so the ID depends only on the content.
docker save "$built" | "$work/reproducible" "$tag" | docker load --quiet >/dev/null
id=$(docker image inspect --format '{{.Id}}' "$tag")
if [ "$id" != "$built" ]; then
  docker rmi "$built" >/dev/null 2>&1 || true
fi
echo "$id"
