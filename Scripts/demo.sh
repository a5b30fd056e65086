#!/usr/bin/env bash
# demo.sh — two hosts on a private link: one publishes a service with `ciao publish`, the other
# finds it with `ciao browse` and `ciao resolve`. Needs root (it creates network namespaces).
#
# Usage (from anywhere; runs in the package root):
#   bash Scripts/demo.sh
#
# NETWORK SAFETY: nothing is sent on this machine's interfaces. The demo creates two namespaces,
# ciaodemo<PID>-pub and ciaodemo<PID>-browse, joined by one veth pair created inside them
# (no interface ever exists in the root namespace):
#
#   ciaodemo<PID>-pub     demo0  198.18.70.1/24  fd00:198:18::70:1/64  host name demo-publisher
#   ciaodemo<PID>-browse  demo0  198.18.70.2/24  fd00:198:18::70:2/64  host name demo-browser
#
# Each ciao runs in a UTS namespace of its own (`unshare --uts`) with that host name, so the
# machine's name is left alone. On exit a trap stops what still runs in the two namespaces (only
# what this run started) and deletes them.
#
# Exit status: 0 when the browser listed and resolved the service, 1 otherwise.
#
# Environment: CIAO_DEMO_CLI  a ciao executable to use instead of building one (swift build).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v swift >/dev/null || PATH="$PATH:/opt/swift/usr/bin"
log() { echo "demo.sh: $*" >&2; }
die() { log "$*"; exit 1; }
[[ $EUID -eq 0 ]] || die "needs root (it creates network namespaces)"
for tool in ip unshare hostname timeout; do command -v "$tool" >/dev/null || die "needs $tool"; done
# shellcheck source=lib/peers.sh
. "$root/Scripts/lib/peers.sh"    # stop_driver_and_labs: the exit trap's clean-up

prefix="ciaodemo$$"
pub="$prefix-pub"
browse="$prefix-browse"
work="$(mktemp -d /tmp/ciao-demo.XXXXXX)"
publisher=""
cleanup() {
    set +e
    # TERM (then KILL after 3 s) to the publisher if it still runs, KILL to anything else left
    # in the two namespaces, then the namespaces go (and with them the veth pair).
    stop_driver_and_labs "$publisher" "$prefix" 3
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
shown() { printf '$ %s\n' "$1"; }

step "building ciao (outside the namespaces)"
cli="${CIAO_DEMO_CLI:-}"
if [[ -z "$cli" ]]; then
    swift build --product ciao
    cli="$(swift build --show-bin-path)/ciao"
fi
[[ -x "$cli" ]] || die "no ciao executable at $cli"

step "creating two hosts, $pub and $browse, joined by a veth pair"
for ns in "$pub" "$browse"; do
    ip netns add "$ns"
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
    ip -n "$ns" link set lo up
done
# Created inside one namespace, its peer moved straight into the other.
ip -n "$pub" link add demo0 type veth peer name demo0 netns "$browse"
number=1
for ns in "$pub" "$browse"; do
    ip -n "$ns" link set demo0 multicast on up
    ip -n "$ns" addr add "198.18.70.$number/24" dev demo0
    ip -n "$ns" -6 addr add "fd00:198:18::70:$number/64" dev demo0 nodad
    ip -n "$ns" route add 224.0.0.0/4 dev demo0
    number=$((number + 1))
done
for _ in $(seq 50); do
    if ip -n "$browse" -o link show demo0 | grep -q LOWER_UP \
        && [[ -n "$(ip -n "$browse" -6 -o addr show dev demo0 scope link)" ]]; then break; fi
    sleep 0.1
done
for ns in "$pub" "$browse"; do echo "$ns:"; ip -n "$ns" -brief addr show dev demo0; done

# on NAMESPACE NAME COMMAND...: sets argv to run COMMAND in NAMESPACE under host name NAME; ip
# netns exec, unshare and sh all exec, so the process started is COMMAND itself (its PID is $!).
on() {
    local ns=$1 name=$2
    shift 2
    argv=(ip netns exec "$ns" unshare --uts sh -c 'hostname "$1" && shift && exec "$@"' sh "$name" "$@")
}

step "demo-publisher: publishing \"Demo Kitchen\" (_ciaodemo._tcp, port 7000, TXT v=1 room=kitchen)"
shown 'ciao publish "Demo Kitchen" _ciaodemo._tcp 7000 v=1 room=kitchen'
on "$pub" demo-publisher "$cli" publish "Demo Kitchen" _ciaodemo._tcp 7000 v=1 room=kitchen
"${argv[@]}" >"$work/publish.out" 2>"$work/publish.err" &
publisher=$!
for _ in $(seq 100); do
    grep -q "Established" "$work/publish.out" 2>/dev/null && break
    kill -0 "$publisher" 2>/dev/null || break
    sleep 0.1
done
cat "$work/publish.out" "$work/publish.err"
grep -q "Established" "$work/publish.out" || die "the publisher did not establish its service"

failed=0
step "demo-browser: every service on the link, resolved (the README's main job)"
shown 'ciao browse --all --resolve --terminate'
browse_status=0
on "$browse" demo-browser timeout 60 "$cli" browse --all --resolve --terminate
"${argv[@]}" | tee "$work/browse.out" || browse_status=$?
if [[ $browse_status -ne 0 ]] || ! grep -q "Demo Kitchen" "$work/browse.out" \
    || ! grep -q "hostname = demo-publisher.local" "$work/browse.out"; then
    log "FAIL: the browse (status $browse_status) did not list and resolve \"Demo Kitchen\""
    failed=1
fi

step "demo-browser: resolving \"Demo Kitchen\" by name"
shown 'ciao resolve "Demo Kitchen" _ciaodemo._tcp --timeout 10'
resolve_status=0
on "$browse" demo-browser "$cli" resolve "Demo Kitchen" _ciaodemo._tcp --timeout 10
"${argv[@]}" | tee "$work/resolve.out" || resolve_status=$?
if [[ $resolve_status -ne 0 ]] || ! grep -q "198.18.70.1" "$work/resolve.out" \
    || ! grep -q "port     = 7000" "$work/resolve.out"; then
    log "FAIL: the resolve (status $resolve_status) did not give 198.18.70.1 port 7000"
    failed=1
fi

step "demo-publisher: withdrawing (SIGTERM: goodbyes, then exit 0)"
kill -TERM "$publisher"
publish_status=0
wait "$publisher" || publish_status=$?
publisher=""
echo "ciao publish exited with status $publish_status"

step "result"
if [[ $failed -ne 0 ]]; then
    echo "FAILED: see above"
    exit 1
fi
echo "OK: demo-browser listed and resolved demo-publisher's \"Demo Kitchen\" (198.18.70.1 port 7000)"
