#!/usr/bin/env bash
# interop.sh — Ciao against real mDNS peers (avahi-daemon 0.8, python-zeroconf), for real, on a
# private network of Linux network namespaces. Needs root.
#
# Usage:
#   bash Scripts/interop.sh [--no-install] [SCENARIO ...]     run all scenarios, or the ones named
#   bash Scripts/interop.sh --list                            name and summary of each scenario
#
# Steps: installs what is missing (Debian packages when their commands are missing; a venv with
# PyPI zeroconf), builds the CiaoInteropAgent, ciao and Chat (Examples/Chat) products, then runs
# Tests/Interop/interop.py, which prints "PASS name: figures" / "FAIL name: reason" per scenario
# and "interop: N passed, M failed".
# The exit status is non-zero if any scenario fails. Logs stay in the work directory it prints.
#
# NETWORK SAFETY: nothing is sent on this machine's interfaces. Every scenario builds its own
# namespaces (names "ciaoint<PID>-*"), joined by a bridge in its own namespace, with addresses
# from 198.18.0.0/15 and fd00:198:18::/64. On exit the trap stops the driver, kills what still
# runs inside those namespaces (only processes this run started) and deletes them.
#
# Environment:
#   CIAO_INTEROP_SKIP_INSTALL=1  install nothing (same as --no-install); missing tools then fail
#   ZEROCONF_PYTHON              a python that can `import zeroconf` (skips the venv)
#   CIAO_INTEROP_VENV            where the zeroconf venv is kept (default /opt/ciao-interop-venv)
#   DBUS_PYTHON                  python with Debian's python3-dbus (default /usr/bin/python3)
#   CIAO_INTEROP_AGENT           a CiaoInteropAgent executable to use instead of building one
#   CIAO_INTEROP_CLI             a ciao executable to use instead of building one
#   CIAO_INTEROP_DEMO            a NetServiceDemo executable to use instead of building one
#   CIAO_INTEROP_CHAT            a Chat executable (Examples/Chat) to use instead of building one
#   CIAO_INTEROP_SCRATCH         --scratch-path for swift build (default: the package's .build)
#   CIAO_INTEROP_TIMEOUT         seconds the scenarios may take in all (default 780)
#   CIAO_MDNSRESPONDER           Apple's mDNSResponder built for Linux: a directory with bin/mdnsd,
#                                bin/dns-sd and lib/libdns_sd.so (the mdnsresponder scenarios skip
#                                without one)
#   CIAO_MDNSRESPONDER_SOURCE    or the mDNSResponder-2600.100.147 source tarball to build it from
#                                (needs gcc, make and libmbedtls-dev; built once into
#                                /opt/ciao-mdnsresponder)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRIVER="$ROOT/Tests/Interop/interop.py"
DBUS_PYTHON=${DBUS_PYTHON:-/usr/bin/python3}
VENV=${CIAO_INTEROP_VENV:-/opt/ciao-interop-venv}
ZEROCONF_SPEC="zeroconf==0.154.0"        # the version the suite was written against
SKIP_INSTALL=${CIAO_INTEROP_SKIP_INSTALL:-}

log() { echo "interop: $*" >&2; }
die() { log "$*"; exit 1; }

ARGS=()
for a in "$@"; do
  case "$a" in
    --no-install) SKIP_INSTALL=1 ;;
    --list) exec python3 "$DRIVER" --agent none --list ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) die "unknown option $a (see --help)" ;;
    *) ARGS+=("$a") ;;
  esac
done
[ "$(id -u)" = 0 ] || die "must run as root (it creates network namespaces)"

# ------------------------------------------------------------------ peers (Scripts/lib/peers.sh)
# shellcheck source=lib/peers.sh
. "$ROOT/Scripts/lib/peers.sh"
install_peer_packages tmux:tmux
ensure_zeroconf

# ------------------------------------------------------------------ the agent and the ciao tool
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
SCRATCH=()
[ -n "${CIAO_INTEROP_SCRATCH:-}" ] && SCRATCH=(--scratch-path "$CIAO_INTEROP_SCRATCH")
build() {   # PRODUCT: builds it, prints the executable's path
  log "building $1"
  (cd "$ROOT" && swift build "${SCRATCH[@]}" --product "$1" >&2)
  echo "$(cd "$ROOT" && swift build "${SCRATCH[@]}" --show-bin-path)/$1"
}
AGENT=${CIAO_INTEROP_AGENT:-}
[ -n "$AGENT" ] || AGENT=$(build CiaoInteropAgent)
[ -x "$AGENT" ] || die "no agent executable at $AGENT"
CLI=${CIAO_INTEROP_CLI:-}
[ -n "$CLI" ] || CLI=$(build ciao)
[ -x "$CLI" ] || die "no ciao executable at $CLI"
CHAT=${CIAO_INTEROP_CHAT:-}
[ -n "$CHAT" ] || CHAT=$(build Chat)
[ -x "$CHAT" ] || die "no Chat executable at $CHAT"
DEMO=${CIAO_INTEROP_DEMO:-}
[ -n "$DEMO" ] || DEMO=$(build NetServiceDemo)
[ -x "$DEMO" ] || die "no NetServiceDemo executable at $DEMO"

# ------------------------------------------------------------------ Apple's mDNSResponder (optional)
MDNSR=${CIAO_MDNSRESPONDER:-}
if [ -z "$MDNSR" ] && [ -n "${CIAO_MDNSRESPONDER_SOURCE:-}" ]; then
  MDNSR=/opt/ciao-mdnsresponder
  build_mdnsresponder "$CIAO_MDNSRESPONDER_SOURCE" "$MDNSR" || { log "mDNSResponder did not build; its scenarios skip"; MDNSR=""; }
fi
[ -n "$MDNSR" ] || log "no mDNSResponder (CIAO_MDNSRESPONDER / CIAO_MDNSRESPONDER_SOURCE unset): its scenarios skip"

# ------------------------------------------------------------------ run
PREFIX="ciaoint$$"
WORK=$(mktemp -d /tmp/ciao-interop.XXXXXX)
chmod 755 "$WORK"
DRIVER_PID=""

cleanup() {
  set +e
  stop_driver_and_labs "$DRIVER_PID" "$PREFIX" 5
  log "logs: $WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "agent $AGENT; ciao $CLI; chat $CHAT; demo $DEMO; zeroconf $("$ZEROCONF_PYTHON" -c 'import zeroconf; print(zeroconf.__version__)');" \
    "$(avahi-daemon --version 2>&1)"
rc=0
timeout -k 10 "${CIAO_INTEROP_TIMEOUT:-780}" "$ZEROCONF_PYTHON" "$DRIVER" --agent "$AGENT" --ciao "$CLI" --chat "$CHAT" --demo "$DEMO" \
  --zeroconf-python "$ZEROCONF_PYTHON" --dbus-python "$DBUS_PYTHON" --prefix "$PREFIX" --workdir "$WORK" \
  --mdnsresponder "$MDNSR" \
  "${ARGS[@]}" &
DRIVER_PID=$!
wait "$DRIVER_PID" || rc=$?
DRIVER_PID=""
[ "$rc" = 124 ] && log "the scenarios did not finish within ${CIAO_INTEROP_TIMEOUT:-780} s"
exit "$rc"
