#!/usr/bin/env bash
# wire-benchmark.sh — Ciao side by side with avahi-daemon 0.8, python-zeroconf and, when given,
# Apple's mDNSResponder, on the wire, in one run: discovery, new service, removal,
# 200 / 1000 services with packets and bytes (tshark), loss, responder CPU per query, idle CPU,
# memory. Needs root.
#
# Usage:
#   bash Benchmarks/wire-benchmark.sh [--quick] [--no-install] [--only LIST] [--bulk-runs N]
#                                     [--mdnsresponder DIR] [RESULTS_DIR]
#
#   --quick       few repetitions, 200 services only, for CI smoke runs (about 4 minutes; 5 with mDNSResponder)
#   (default)     the full run (about 21 minutes on a 2-core machine; 31 with mDNSResponder)
#   --only LIST   a subset of a,b,c,d,e,f,g,idle (comma-separated), e.g. --only a,b,c
#   --bulk-runs N how many times each (d) and (e) cell is measured (default 3; 1 with --quick)
#   --mdnsresponder DIR  Apple's mDNSResponder built for Linux (bin/mdnsd, bin/dns-sd,
#                 lib/libdns_sd.so), a fourth column; without it (and without CIAO_MDNSRESPONDER /
#                 CIAO_MDNSRESPONDER_SOURCE) its column is left out
#   RESULTS_DIR   where results go (default /tmp/ciao-bench-<date>-<time>): results.json,
#                 results.md (tables: each stack's figure, Ciao's ratio to the best peer),
#                 latency.svg (latency distributions), work/ (every process's log, the captures)
#
# Steps: installs what is missing (Debian packages, tshark without its debconf question, a venv
# with PyPI zeroconf), builds CiaoInteropAgent in release mode with the Swift runtime linked
# statically (--static-swift-stdlib --scratch-path /tmp/bench-build),
# then runs Benchmarks/Wire/bench.py, which imports Tests/Interop/lab.py and the interop peers.
#
# NETWORK SAFETY: nothing is sent on this machine's interfaces. The benchmark builds its own
# namespaces (names "ciaobench<PID>-*", joined by a bridge in a namespace of their own, addresses
# from 198.18.0.0/15 and fd00:198:18::/64); the captures run inside them. On exit the trap stops
# the driver, kills what still runs inside those namespaces (only what this run started) and
# deletes them.
#
# Environment:
#   ZEROCONF_PYTHON          a python that can `import zeroconf` (skips the venv)
#   CIAO_INTEROP_VENV        where the zeroconf venv is kept (default /opt/ciao-interop-venv)
#   DBUS_PYTHON              python with Debian's python3-dbus (default /usr/bin/python3)
#   CIAO_BENCH_AGENT         a release CiaoInteropAgent to use instead of building one
#   CIAO_BENCH_SCRATCH       --scratch-path for swift build (default /tmp/bench-build)
#   CIAO_BENCH_TIMEOUT       seconds the driver may take (default 420 quick, 2700 full; 150 and 450
#                            more per (d)/(e) run beyond the default 1 and 3; with mDNSResponder a
#                            third more)
#   CIAO_MDNSRESPONDER       as --mdnsresponder DIR
#   CIAO_MDNSRESPONDER_SOURCE  or the mDNSResponder-2600.100.147 source tarball to build it from
#                            (needs gcc, make and libmbedtls-dev; built once into /opt/ciao-mdnsresponder,
#                            as Scripts/interop.sh does)
#   CIAO_MDNSRESPONDER_VERSION its source version, for the report (default: DIR/VERSION, which a
#                            build from CIAO_MDNSRESPONDER_SOURCE writes)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRIVER="$ROOT/Benchmarks/Wire/bench.py"
DBUS_PYTHON=${DBUS_PYTHON:-/usr/bin/python3}
VENV=${CIAO_INTEROP_VENV:-/opt/ciao-interop-venv}
ZEROCONF_SPEC="zeroconf==0.154.0"
SCRATCH=${CIAO_BENCH_SCRATCH:-/tmp/bench-build}
SKIP_INSTALL=""
QUICK=""
ONLY=""
BULK_RUNS=""
MDNSR=${CIAO_MDNSRESPONDER:-}
OUT=""
COMMAND="bash Benchmarks/wire-benchmark.sh $*"

log() { echo "wire-benchmark: $*" >&2; }
die() { log "$*"; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --no-install) SKIP_INSTALL=1 ;;
    --only) shift; ONLY=${1:-} ;;
    --only=*) ONLY=${1#--only=} ;;
    --bulk-runs) shift; BULK_RUNS=${1:-} ;;
    --bulk-runs=*) BULK_RUNS=${1#--bulk-runs=} ;;
    --mdnsresponder) shift; MDNSR=${1:-} ;;
    --mdnsresponder=*) MDNSR=${1#--mdnsresponder=} ;;
    -h|--help) sed -n '2,47p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) OUT=$1 ;;
  esac
  shift
done
[ "$(id -u)" = 0 ] || die "must run as root (it creates network namespaces)"
OUT=${OUT:-/tmp/ciao-bench-$(date +%Y%m%d-%H%M%S)}

# ------------------------------------------------------------------ peers (Scripts/lib/peers.sh)
# shellcheck source=../Scripts/lib/peers.sh
. "$ROOT/Scripts/lib/peers.sh"
install_peer_packages tshark:tshark dumpcap:wireshark-common
ensure_zeroconf

# ------------------------------------------------------------------ Apple's mDNSResponder (optional)
if [ -z "$MDNSR" ] && [ -n "${CIAO_MDNSRESPONDER_SOURCE:-}" ]; then
  MDNSR=/opt/ciao-mdnsresponder
  build_mdnsresponder "$CIAO_MDNSRESPONDER_SOURCE" "$MDNSR" || { log "mDNSResponder did not build"; MDNSR=""; }
fi
MDNSR_VERSION=""
if [ -n "$MDNSR" ]; then
  for f in bin/mdnsd bin/dns-sd lib/libdns_sd.so; do
    [ -e "$MDNSR/$f" ] || die "--mdnsresponder $MDNSR: no $f there"
  done
  MDNSR_VERSION=${CIAO_MDNSRESPONDER_VERSION:-$(cat "$MDNSR/VERSION" 2>/dev/null || true)}
else
  log "mDNSResponder not given (--mdnsresponder DIR, CIAO_MDNSRESPONDER or CIAO_MDNSRESPONDER_SOURCE): its column is left out"
fi

# ------------------------------------------------------------------ the agent, release mode
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
SWIFT_VERSION=$(swift --version 2>/dev/null | head -1 || echo "?")
AGENT=${CIAO_BENCH_AGENT:-}
BUILD="given: $AGENT"
if [ -z "$AGENT" ]; then
  # Linked as a Swift program is deployed on Linux: the Swift runtime and libraries statically, so
  # that only what the program uses is mapped (3.3 MiB less resident than linked dynamically).
  # The link prints glibc's "use of mktemp is dangerous": FoundationEssentials' archive, not Ciao.
  release_product CiaoInteropAgent "$SCRATCH" --static-swift-stdlib
  AGENT=$BUILT
fi
[ -x "$AGENT" ] || die "no agent executable at $AGENT"

# ------------------------------------------------------------------ run
PREFIX="ciaobench$$"
mkdir -p "$OUT"
ARGS=(--agent "$AGENT" --zeroconf-python "$ZEROCONF_PYTHON" --dbus-python "$DBUS_PYTHON" --prefix "$PREFIX"
      --out "$OUT" --command "$COMMAND" --build "$BUILD" --swift-version "$SWIFT_VERSION")
[ -n "$QUICK" ] && ARGS+=(--quick)
[ -n "$ONLY" ] && ARGS+=(--only "$ONLY")
[ -n "$BULK_RUNS" ] && ARGS+=(--bulk-runs "$BULK_RUNS")
[ -n "$MDNSR" ] && ARGS+=(--mdnsresponder "$MDNSR" --mdnsresponder-version "$MDNSR_VERSION")
if [ -n "$QUICK" ]; then BASE_LIMIT=420 PER_RUN=150 DEFAULT_RUNS=1; else BASE_LIMIT=2700 PER_RUN=450 DEFAULT_RUNS=3; fi
RUNS=${BULK_RUNS:-$DEFAULT_RUNS}
EXTRA_RUNS=$(( RUNS > DEFAULT_RUNS ? RUNS - DEFAULT_RUNS : 0 ))
LIMIT=$(( BASE_LIMIT + PER_RUN * EXTRA_RUNS ))
[ -n "$MDNSR" ] && LIMIT=$(( LIMIT * 4 / 3 ))
LIMIT=${CIAO_BENCH_TIMEOUT:-$LIMIT}
log "agent $AGENT; $SWIFT_VERSION; zeroconf $("$ZEROCONF_PYTHON" -c 'import zeroconf; print(zeroconf.__version__)'); $(avahi-daemon --version 2>/dev/null | head -1)" \
    "${MDNSR:+; mDNSResponder ${MDNSR_VERSION:-(version not given)} in $MDNSR}"
# the driver is stdlib only; the peers run with ZEROCONF_PYTHON and DBUS_PYTHON
rc=0
run_driver "$PREFIX" 10 "$LIMIT" "$DRIVER" "${ARGS[@]}" || rc=$?
exit "$rc"
