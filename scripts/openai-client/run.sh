#!/usr/bin/env bash
# Runs the official openai npm SDK (pinned in package.json) against a live
# `isagi serve --demo` (the text demo) and `isagi serve --demo=chat` (the
# chat demo, for the tool-call checks).
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
log2=$(mktemp "${TMPDIR:-/tmp}/isagi-serve-chat.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      kill -9 "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$log" "$log2"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# serve LOG ARGS… starts a server logging to LOG; port_of LOG PID waits for
# its port.
serve() {
  local l=$1
  shift
  "$isagi" serve "$@" --port 0 >"$l" 2>&1 &
  pids+=($!)
}
port_of() {
  local l=$1 p=$2 found=
  local deadline=$((SECONDS + 60))
  while [[ -z $found ]]; do
    found=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$l" | head -n1 | sed 's/.*://' || true)
    [[ -n $found ]] && break
    if ! kill -0 "$p" 2>/dev/null; then
      echo "run.sh: isagi serve exited before listening; its log:" >&2
      cat "$l" >&2
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      echo "run.sh: isagi serve did not print 'listening on http://127.0.0.1:PORT' within 60s; its log:" >&2
      cat "$l" >&2
      exit 1
    fi
    sleep 0.2
  done
  echo "$found"
}

serve "$log" --demo --parallel 2
serve "$log2" --demo=chat --parallel 2
port=$(port_of "$log" "${pids[0]}")
port2=$(port_of "$log2" "${pids[1]}")

status=0
node "$dir/client.mjs" "http://127.0.0.1:$port/v1" "http://127.0.0.1:$port2/v1" || status=$?
if [[ $status -ne 0 ]]; then
  echo "run.sh: client failed (exit $status); server logs:" >&2
  cat "$log" "$log2" >&2
fi
exit "$status"
