#!/usr/bin/env bash
# transport-tests.sh — runs the socket tests inside a network namespace of their own.
#
# Usage (as root, from anywhere; runs in the package root):
#   bash Scripts/transport-tests.sh [extra `swift test` arguments]
#
# The socket tests open mDNS sockets and send multicast, so they must never run on the host's
# interfaces. This script builds the tests outside any namespace (building needs no
# network), then creates ONE namespace `ciaotr<pid>` holding a veth pair whose two ends sit in that
# same namespace, on two subnets:
#
#   tra0  198.18.60.1/24  fd00:198:18:60::1/64  (+ its fe80:: link-local)
#   trb0  198.18.61.1/24  fd00:198:18:61::1/64  (+ its fe80:: link-local)
#
# and runs the socket tests (CiaoTransportTests, and DriverEquivalenceTests: two runtimes, one on
# each end) in it with CIAO_TRANSPORT_NETNS=1, which enables them. Without that variable (plain
# `swift test`) they are skipped. The
# namespace, and with it the veth pair, is deleted on exit.
#
# Environment: CIAO_TRANSPORT_SCRATCH  build directory (default /tmp/transport-build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v swift >/dev/null || PATH="$PATH:/opt/swift/usr/bin"
if [[ $EUID -ne 0 ]]; then
    echo "transport-tests.sh: needs root (it creates a network namespace)" >&2
    exit 1
fi
scratch="${CIAO_TRANSPORT_SCRATCH:-/tmp/transport-build}"
namespace="ciaotr$$"

cleanup() {
    ip netns delete "$namespace" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== building tests (outside the namespace)"
swift build --scratch-path "$scratch" --build-tests

echo "== creating namespace $namespace"
ip netns add "$namespace"
in_namespace() { ip netns exec "$namespace" "$@"; }

in_namespace ip link set lo up
# Addresses are usable at once (no duplicate address detection), and IPv6 addresses survive a
# link going down, which one test does to trb0.
for scope in all default; do
    in_namespace sysctl -qw "net.ipv6.conf.$scope.accept_dad=0" "net.ipv6.conf.$scope.keep_addr_on_down=1"
done
in_namespace ip link add tra0 type veth peer name trb0
in_namespace ip addr add 198.18.60.1/24 dev tra0
in_namespace ip addr add fd00:198:18:60::1/64 dev tra0 nodad
in_namespace ip addr add 198.18.61.1/24 dev trb0
in_namespace ip addr add fd00:198:18:61::1/64 dev trb0 nodad
for device in tra0 trb0; do
    # Both ends are ours, so IPv4 packets from tra0 arrive on trb0 with a local source address,
    # which the kernel drops as martian unless accept_local is set.
    in_namespace sysctl -qw "net.ipv4.conf.$device.accept_local=1"
    in_namespace ip link set "$device" multicast on up
done

# Wait until both ends have carrier and an IPv6 link-local address.
for _ in $(seq 50); do
    if [[ $(in_namespace ip -6 -o addr show scope link | grep -c 'tr[ab]0') -ge 2 ]] \
        && in_namespace ip -o link show tra0 | grep -q LOWER_UP \
        && in_namespace ip -o link show trb0 | grep -q LOWER_UP; then
        break
    fi
    sleep 0.1
done
in_namespace ip -brief addr

# One suite after the other: both use port 5353 on the veth pair, and one's traffic would reach
# the other's sockets.
for suite in CiaoTransportTests DriverEquivalenceTests; do
    echo "== running $suite in $namespace"
    in_namespace env CIAO_TRANSPORT_NETNS=1 \
        swift test --scratch-path "$scratch" --skip-build --filter "$suite" "$@"
done
