#!/bin/sh
# Soak: N runs of a mix of outcomes (ok, program error, output flood, timeout,
# OOM), P at a time, each checked for its exit status; then the engine must
# list no container with the tool's labels. Usage: scripts/soak.sh [N] [P]
set -eu
cd "$(dirname "$0")/.."
n=${1:-100}
p=${2:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
go build -o "$work/synapse-isolation" .
image=$(scripts/build-image.sh)

cat > "$work/one" <<'SH'
#!/bin/sh
# one I: run case I mod 5 and check its exit status.
tool=$(dirname "$0")/synapse-isolation
case $(($1 % 5)) in
  0) want=0;   set -- --code '1+2' ;;
  1) want=1;   set -- --code '1 // 0' ;;
  2) want=0;   set -- --code 'for i in range(5000):
  print("x" * 100)' ;;
  3) want=124; set -- --timeout 1s --code 'while True:
  pass' ;;
  4) want=137; set -- --memory 64m --code 'x = "x" * (1 << 29)' ;;
esac
"$tool" run --image "$IMAGE" "$@" >/dev/null 2>&1 && got=0 || got=$?
if [ "$got" != "$want" ]; then echo "case $(($1 % 5)): exit $got, want $want"; exit 1; fi
SH
chmod +x "$work/one"

start=$(date +%s)
fails=0
seq "$n" | IMAGE=$image xargs -P "$p" -n 1 "$work/one" || fails=1
took=$(($(date +%s) - start))
left=$(docker ps --all --quiet --filter label=io.synapse-isolation.run-id | wc -l)
echo "soak: $n runs, $p at a time, ${took}s; containers left: $left"
[ "$fails" = 0 ] && [ "$left" = 0 ]
