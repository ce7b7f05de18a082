#!/usr/bin/env bash
# Runs the official openai npm SDK (pinned in package.json) against a live
# `isagi serve --demo`.
#
#   scripts/openai-client/run.sh path/to/isagi
#
# Exits with client.mjs's status (0: all checks passed).
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 ISAGI_BIN" >&2
  exit 2
fi
isagi=$1
src=${BASH_SOURCE[0]}
[[ $src == */* ]] || src=./$src
dir=$(cd "${src%/*}" && pwd)

if ! command -v node >/dev/null 2>&1; then
  echo "run.sh: node not found in PATH (Node.js 20+ is needed to run the openai SDK client)" >&2
  exit 1
fi
if [[ $isagi != */* ]] && command -v "$isagi" >/dev/null 2>&1; then
  isagi=$(command -v "$isagi")
fi
if [[ ! -x $isagi ]]; then
  echo "run.sh: $isagi is not an executable" >&2
  exit 1
fi

if [[ ! -d $dir/node_modules/openai ]]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "run.sh: npm not found in PATH (needed once to install the pinned openai package)" >&2
    exit 1
  fi
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error --prefix "$dir" >/dev/null
fi

log=$(mktemp "${TMPDIR:-/tmp}/isagi-serve.XXXXXX")
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$isagi" serve --demo --port 0 --parallel 2 >"$log" 2>&1 &
pid=$!

port=
deadline=$((SECONDS + 60))
while [[ -z $port ]]; do
  port=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$log" | head -n1 | sed 's/.*://' || true)
  [[ -n $port ]] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "run.sh: isagi serve exited before listening; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  if ((SECONDS >= deadline)); then
    echo "run.sh: isagi serve did not print 'listening on http://127.0.0.1:PORT' within 60s; its log:" >&2
    cat "$log" >&2
    exit 1
  fi
  sleep 0.2
done

status=0
node "$dir/client.mjs" "http://127.0.0.1:$port/v1" || status=$?
if [[ $status -ne 0 ]]; then
  echo "run.sh: client failed (exit $status); server log:" >&2
  cat "$log" >&2
fi
exit "$status"
