#!/usr/bin/env bash
# idle-wakeups.sh — how often an idle `ciao` wakes: the voluntary context switches of all its
# threads (/proc/PID/task/*/status) over 10 seconds, once it has settled for 5, for
# `ciao publish`, `ciao browse` and `ciao explore` (under a pseudo-terminal), each alone on a
# quiet private link. Needs root (it creates a network namespace) and `script` (util-linux).
#
# Usage (from anywhere; runs in the package root):
#   bash Scripts/idle-wakeups.sh [RUNS]      RUNS per command, 2 by default
#
# NETWORK SAFETY: nothing is sent on this machine's interfaces. The commands run in one namespace,
# ciaoidle<PID>, on a veth pair created inside it (198.18.71.1/24, fd00:198:18::71:1/64); on exit
# a trap ends what this run started, by PID, and deletes the namespace.
#
# Environment: CIAO_IDLE_CLI  a ciao executable to use instead of building one (swift build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v swift >/dev/null || PATH="$PATH:/opt/swift/usr/bin"
log() { echo "idle-wakeups.sh: $*" >&2; }
die() { log "$*"; exit 1; }
[[ $EUID -eq 0 ]] || die "needs root (it creates a network namespace)"
for tool in ip script timeout; do command -v "$tool" >/dev/null || die "needs $tool"; done
runs="${1:-2}"

ns="ciaoidle$$"
started=()
cleanup() {
    set +e
    for pid in "${started[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    ip netns del "$ns" 2>/dev/null
}
trap cleanup EXIT

cli="${CIAO_IDLE_CLI:-}"
if [[ -z "$cli" ]]; then
    swift build --product ciao >&2
    cli="$root/.build/debug/ciao"
fi

ip netns add "$ns"
ip -n "$ns" link add idle0 type veth peer name idle1
ip -n "$ns" addr add 198.18.71.1/24 dev idle0
ip -n "$ns" addr add fd00:198:18::71:1/64 dev idle0 nodad
for link in lo idle0 idle1; do ip -n "$ns" link set "$link" up; done

# The voluntary context switches of every thread of process $1 so far.
switches() {
    local total=0 count
    for status in /proc/"$1"/task/*/status; do
        count=$(awk '/^voluntary_ctxt_switches/ {print $2}' "$status" 2>/dev/null || true)
        total=$((total + ${count:-0}))
    done
    echo "$total"
}

# Runs `ciao ARGS` in the namespace for 20 s; prints its switches between seconds 5 and 15.
measure() {
    local pid before after
    if [[ "$1" == explore ]]; then
        # A terminal that types nothing: script(1) reads a pipe that stays open and silent.
        sleep 21 | ip netns exec "$ns" env TERM=xterm script -qfc "timeout 20 $cli explore" /dev/null \
            >/dev/null 2>&1 &
    else
        ip netns exec "$ns" timeout 20 "$cli" "$@" >/dev/null 2>&1 &
    fi
    started+=($!)
    sleep 5
    pid=$(pgrep -n -f "^$cli $1" || true)
    [[ -n "$pid" ]] || die "ciao $1 is not running"
    before=$(switches "$pid")
    sleep 10
    after=$(switches "$pid")
    wait "${started[-1]}" 2>/dev/null || true
    echo $((after - before))
}

echo "voluntary context switches of an idle ciao over 10 s ($(basename "$cli"), $runs runs each):"
for command in "publish Idle _http._tcp 80" "browse _http._tcp" "explore"; do
    read -r -a args <<<"$command"
    figures=()
    for ((run = 1; run <= runs; run++)); do figures+=("$(measure "${args[@]}")"); done
    echo "  ciao ${args[0]}: ${figures[*]}"
done
