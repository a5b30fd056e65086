#!/usr/bin/env bash
# wide-area.sh — Ciao's wide-area DNS-SD against a real BIND 9 authoritative server, with
# avahi-daemon's wide-area browsing beside it, on a private network of namespaces. Needs root.
#
# Usage:
#   bash Scripts/wide-area.sh [SCENARIO ...]    run every scenario, or the ones named
#   bash Scripts/wide-area.sh --list            name and summary of each scenario
#
# The lab (Tests/Interop/bind.py, widearea.py): named in a namespace of its own with its own
# configuration, the zone lab.example. (static services, a subtype, type enumeration, browse and
# registration domains, 200 benchmark services), the reverse zones of 198.18.0.0/24 and
# fd00:198:18::/64, two TSIG keys (hmac-sha256) and an update-policy that lets each key write
# only the names of its own services and host. Prints "PASS/FAIL/SKIP name: figures" per scenario
# and "wide-area: N passed, M failed"; the exit status is non-zero if any failed.
#
# NETWORK SAFETY: nothing is sent on this machine's interfaces: the namespaces (names
# "ciaowa<PID>-*") are joined by a bridge in a namespace of their own, with addresses from
# 198.18.0.0/15 and fd00:198:18::/64, and are deleted with what runs in them on exit. named reads
# only the configuration written into the run's work directory; avahi-daemon's resolv.conf is
# bind-mounted in a private mount namespace, so the machine's own stays untouched.
#
# Environment:
#   CIAO_WIDE_AREA_CLI   a ciao executable to use instead of building one
#   CIAO_WIDE_AREA_AGENT a CiaoInteropAgent (the public API's driver) instead of building one
#   CIAO_MDNSRESPONDER   Apple's mDNSResponder built for Linux (bin/mdnsd, bin/dns-sd, lib/), for the
#                        polling comparison; without it that scenario says SKIP
#   CIAO_WIDE_AREA_TIMEOUT  seconds the scenarios may take in all (default 600)
# Needs: bind9 (named), bind9-dnsutils (dig, nsupdate), avahi-daemon, avahi-utils, dbus, iproute2.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRIVER="$ROOT/Tests/Interop/widearea.py"
case "${1:-}" in
  --list) exec python3 "$DRIVER" --ciao /bin/false --list ;;
  -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
esac
[ "$(id -u)" = 0 ] || { echo "wide-area.sh: must run as root (it creates network namespaces)" >&2; exit 1; }
for tool in named nsupdate dig avahi-daemon avahi-browse dbus-daemon; do
  command -v "$tool" >/dev/null || { echo "wide-area.sh: $tool is missing (apt-get install -y bind9 bind9-dnsutils avahi-daemon avahi-utils dbus)" >&2; exit 1; }
done
CLI=${CIAO_WIDE_AREA_CLI:-}
if [ -z "$CLI" ]; then
  (cd "$ROOT" && swift build --product ciao >&2)
  CLI="$(cd "$ROOT" && swift build --show-bin-path)/ciao"
fi
AGENT=${CIAO_WIDE_AREA_AGENT:-}
if [ -z "$AGENT" ]; then
  (cd "$ROOT" && swift build --product CiaoInteropAgent >&2)
  AGENT="$(cd "$ROOT" && swift build --show-bin-path)/CiaoInteropAgent"
fi
exec timeout --signal=TERM "${CIAO_WIDE_AREA_TIMEOUT:-600}" python3 "$DRIVER" --ciao "$CLI" --agent "$AGENT" "$@"
