#!/usr/bin/env bash
# soak-benchmark.sh — spurious removals per hour of services that stay up, Ciao's browser beside
# avahi's doing the same job, for N minutes: 5 % packet loss on the browsers' links, a third-party
# querier asking for the type every 5 s over IPv4 and IPv6, IPv4-only and dual-stack publishers
# (avahi-daemon with use-ipv6=no, avahi-daemon, `ciao publish`, python-zeroconf). Needs root.
#
# Usage:
#   bash Benchmarks/soak-benchmark.sh [--minutes N] [--no-install] [--fail-on-removal] [RESULTS_DIR]
#
#   --minutes N   how long the browsers watch (default 10; setup and teardown add about a minute)
#   --fail-on-removal  exit 3 when Ciao's browser reported a spurious removal (for CI)
#   --no-install  install nothing (or CIAO_SOAK_SKIP_INSTALL=1); without python-zeroconf the run
#                 goes on without the zeroconf publisher
#   RESULTS_DIR   where results go (default /tmp/ciao-soak-<date>-<time>): results.json,
#                 results.md (per browser: services watched, minutes, spurious removals, per hour,
#                 flaps, longest gap; each removal with the capture's packets before it),
#                 work/ (every process's log, the browser hosts' captures)
#
# What it measures: every publisher stays up the whole run, so each "-" line that
# `ciao browse -p TYPE` (host bc) or `avahi-browse -p TYPE` (host ba, against its own
# avahi-daemon) prints for one of them is spurious. Benchmarks/Soak/soak.py counts them (the
# lines of one service within 1 s are one removal), the flaps (removed, then listed again) and
# their gaps. Loss: LOSS % of the packets crossing each browser host's link, both directions
# (nftables, Tests/Interop/lab.py Host.loss); the publishers' and the querier's links are lossless.
#
# Steps: installs what is missing (Debian packages, tshark/dumpcap, a venv with PyPI zeroconf),
# builds `ciao` in release mode (--scratch-path /tmp/soak-build), then runs soak.py, which imports
# Tests/Interop/lab.py and uses the interop peers.
#
# NETWORK SAFETY: nothing is sent on this machine's interfaces. The benchmark builds its own
# namespaces (names "ciaosoak<PID>-*", joined by a bridge in a namespace of their own, addresses
# from 198.18.0.0/15 and fd00:198:18::/64); avahi-daemon, the publishers, the querier and the
# captures run only inside them. On exit the trap stops the driver, kills what still runs inside
# those namespaces (only what this run started) and deletes them.
#
# Environment:
#   CIAO_SOAK_CLI            a release `ciao` to use instead of building one
#   CIAO_SOAK_SCRATCH        --scratch-path for swift build (default /tmp/soak-build)
#   CIAO_SOAK_LOSS           loss percent on the browser hosts' links (default 5)
#   CIAO_SOAK_QUERY_INTERVAL seconds between the querier's queries (default 5)
#   ZEROCONF_PYTHON          a python that can `import zeroconf` (skips the venv)
#   CIAO_INTEROP_VENV        where the zeroconf venv is kept (default /opt/ciao-interop-venv)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRIVER="$ROOT/Benchmarks/Soak/soak.py"
VENV=${CIAO_INTEROP_VENV:-/opt/ciao-interop-venv}
ZEROCONF_SPEC="zeroconf==0.154.0"
SCRATCH=${CIAO_SOAK_SCRATCH:-/tmp/soak-build}
SKIP_INSTALL=${CIAO_SOAK_SKIP_INSTALL:-}
MINUTES=10
OUT=""
COMMAND="bash Benchmarks/soak-benchmark.sh $*"

log() { echo "soak-benchmark: $*" >&2; }
die() { log "$*"; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) shift; MINUTES=${1:-} ;;
    --minutes=*) MINUTES=${1#--minutes=} ;;
    --no-install) SKIP_INSTALL=1 ;;
    --fail-on-removal) FAIL_ON_REMOVAL=1 ;;
    -h|--help) sed -n '2,42p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) OUT=$1 ;;
  esac
  shift
done
[[ "$MINUTES" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--minutes takes a number of minutes, not '$MINUTES'"
[ "$(id -u)" = 0 ] || die "must run as root (it creates network namespaces)"
OUT=${OUT:-/tmp/ciao-soak-$(date +%Y%m%d-%H%M%S)}

# ------------------------------------------------------------------ peers (Scripts/lib/peers.sh)
# shellcheck source=../Scripts/lib/peers.sh
. "$ROOT/Scripts/lib/peers.sh"
install_peer_packages tshark:tshark dumpcap:wireshark-common
if [ -n "$SKIP_INSTALL" ] && [ -z "${ZEROCONF_PYTHON:-}" ] && ! "$VENV/bin/python" -c 'import zeroconf' 2>/dev/null; then
  log "no python-zeroconf (installs are switched off): running without the zeroconf publisher"
  ZEROCONF_PYTHON=""
else
  ensure_zeroconf
fi

# ------------------------------------------------------------------ ciao, release mode
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
CLI=${CIAO_SOAK_CLI:-}
BUILD="given: $CLI"
if [ -z "$CLI" ]; then
  release_product ciao "$SCRATCH"
  CLI=$BUILT
fi
[ -x "$CLI" ] || die "no ciao executable at $CLI"

# ------------------------------------------------------------------ run
PREFIX="ciaosoak$$"
mkdir -p "$OUT"
ARGS=(--ciao "$CLI" --out "$OUT" --prefix "$PREFIX" --minutes "$MINUTES" --command "$COMMAND" --build "$BUILD"
      --loss "${CIAO_SOAK_LOSS:-5}" --query-interval "${CIAO_SOAK_QUERY_INTERVAL:-5}")
[ -n "${ZEROCONF_PYTHON:-}" ] && ARGS+=(--zeroconf-python "$ZEROCONF_PYTHON")
[ -n "${FAIL_ON_REMOVAL:-}" ] && ARGS+=(--fail-on-removal)
# the soak itself, plus setup, teardown and the capture analysis
LIMIT=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 + 600 }')
log "ciao $CLI ($("$CLI" --version 2>/dev/null || echo '?')); $(avahi-daemon --version 2>/dev/null | head -1); $MINUTES minutes"
# the driver is stdlib only; the zeroconf publisher runs with ZEROCONF_PYTHON
rc=0
run_driver "$PREFIX" 20 "$LIMIT" "$DRIVER" "${ARGS[@]}" || rc=$?
exit "$rc"
