#!/usr/bin/env bash
# capture-peer-packets.sh — capture real mDNS / DNS-SD packets sent by avahi-daemon and
# python-zeroconf, and turn them into test resources for CiaoWireTests.
#
# Usage (as root, on Linux):
#   bash Scripts/capture-peer-packets.sh <outdir>
#   e.g. bash Scripts/capture-peer-packets.sh Tests/CiaoWireTests/Captures
#
# Runs Tests/Interop/capture.py, whose docstring lists the scenarios and what it writes:
# <peer>-<what>-<n>.bin (one DNS message each), <same>.txt (tshark's decoding of that frame) and
# captures-summary.md. The peers are the interop suite's (Tests/Interop/peers).
#
# NETWORK SAFETY: nothing is sent on the host's interfaces. Everything runs inside the interop
# lab's network namespaces (names ciaocap<PID>-*), joined by a bridge in its own namespace, with
# addresses from 198.18.53.0/24 and fd00:198:18::/64; they, the daemons and dumpcap are removed
# on exit, and only processes this run started are stopped.
#
# Needs (installs nothing itself):
#   Debian packages: avahi-daemon avahi-utils dbus-daemon (or dbus) iproute2 tshark (dumpcap)
#                    python3 python3-dbus
#   pip package:     zeroconf (in the python named by $ZEROCONF_PYTHON)
# Environment:
#   ZEROCONF_PYTHON  python with `zeroconf` installed (default: the interop suite's venv,
#                    $CIAO_INTEROP_VENV or /opt/ciao-interop-venv, else python3)
#   DBUS_PYTHON      python with Debian's python3-dbus (default: /usr/bin/python3)
#   CIAO_CAPTURE_KEEP=1  keep the work directory (pcap, every payload, index, logs)
set -euo pipefail

log() { echo "capture-peer-packets: $*" >&2; }
die() { log "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root"
[ $# -eq 1 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV_PYTHON=${CIAO_INTEROP_VENV:-/opt/ciao-interop-venv}/bin/python
[ -x "$VENV_PYTHON" ] || VENV_PYTHON=python3
ZEROCONF_PYTHON=${ZEROCONF_PYTHON:-$VENV_PYTHON}
DBUS_PYTHON=${DBUS_PYTHON:-/usr/bin/python3}
for c in ip avahi-daemon avahi-browse dbus-daemon dumpcap tshark unshare; do
  command -v "$c" >/dev/null || die "missing $c"
done
"$ZEROCONF_PYTHON" -c 'import zeroconf' 2>/dev/null || die "$ZEROCONF_PYTHON cannot import zeroconf (set ZEROCONF_PYTHON)"
"$DBUS_PYTHON" -c 'import dbus' 2>/dev/null || die "$DBUS_PYTHON cannot import dbus (python3-dbus)"

KEEP=()
[ "${CIAO_CAPTURE_KEEP:-}" = 1 ] && KEEP=(--keep)
exec python3 "$ROOT/Tests/Interop/capture.py" "$1" --zeroconf-python "$ZEROCONF_PYTHON" \
  --dbus-python "$DBUS_PYTHON" "${KEEP[@]}"
