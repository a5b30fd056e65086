#!/usr/bin/env bash
# capture-tsig.sh — BIND 9's nsupdate and named exchanging TSIG-signed DNS UPDATEs, captured as
# raw DNS messages for the TSIG tests (Tests/CiaoWireTests/Captures/TSIG).
#
# Usage (as root): bash Scripts/capture-tsig.sh OUTDIR
#
# Writes into OUTDIR, for each case (signed, wrong-secret, unknown-key): CASE-request.bin and
# CASE-response.bin, the messages as they crossed a relay between nsupdate and named; and
# ciao-test.key, the test key (its secret is made up for these captures and guards nothing).
#
# NETWORK SAFETY: everything runs in one network namespace created here (ciaotsig<PID>) on its
# own loopback interface; no other interface exists in it. named, the relay and nsupdate are
# stopped by PID and the namespace deleted on exit.
#
# Needs: bind9 (named), bind9-dnsutils (nsupdate), iproute2, python3.
set -euo pipefail
out="${1:?usage: capture-tsig.sh OUTDIR}"
[[ $EUID -eq 0 ]] || { echo "capture-tsig.sh: needs root" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"
ns="ciaotsig$$"
work="$(mktemp -d /tmp/ciao-tsig.XXXXXX)"
pids=()
cleanup() {
    set +e
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
    [[ -n ${CIAO_CAPTURE_KEEP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$ns"
ip -n "$ns" link set lo up

secret="Y2lhby10c2lnLXRlc3Qtc2VjcmV0LW9mLTMyLWJ5dGVzISE="
wrong="d3Jvbmctc2VjcmV0LWZvci10aGUtY2lhby10ZXN0LWtleSE="
cat >"$out/ciao-test.key" <<KEY
key "ciao-test." {
	algorithm hmac-sha256;
	secret "$secret";
};
KEY
sed "s|$secret|$wrong|" "$out/ciao-test.key" >"$work/wrong.key"
sed 's|ciao-test\.|nobody-knows\.|' "$out/ciao-test.key" >"$work/unknown.key"
cat >"$work/named.conf" <<CONF
include "$out/ciao-test.key";
options {
    directory "$work";
    pid-file "$work/named.pid";
    listen-on port 53 { 127.0.0.1; };
    listen-on-v6 { none; };
    recursion no;
};
zone "lab.example." {
    type primary;
    file "$work/lab.example.zone";
    allow-update { key ciao-test.; };
};
CONF
cat >"$work/lab.example.zone" <<'ZONE'
$TTL 300
@   IN SOA ns.lab.example. admin.lab.example. 1 3600 600 86400 60
    IN NS  ns.lab.example.
ns  IN A   127.0.0.1
ZONE
ip netns exec "$ns" named -g -c "$work/named.conf" >"$work/named.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q "running" "$work/named.log" && break; sleep 0.1; done
grep -q "running" "$work/named.log" || { cat "$work/named.log" >&2; exit 1; }

# A relay between nsupdate (port 5300) and named (port 53) that writes what crosses it.
cat >"$work/relay.py" <<'PY'
import socket, sys
work = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 5300))
upstream = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
upstream.settimeout(5)
n = 0
while True:
    request, client = s.recvfrom(65535)
    upstream.sendto(request, ("127.0.0.1", 53))
    response, _ = upstream.recvfrom(65535)
    open(f"{work}/{n}-request.bin", "wb").write(request)
    open(f"{work}/{n}-response.bin", "wb").write(response)
    n += 1
    s.sendto(response, client)
PY
ip netns exec "$ns" python3 "$work/relay.py" "$work" &
pids+=($!)
for _ in $(seq 50); do ip netns exec "$ns" ss -lun | grep -q ':5300 ' && break; sleep 0.1; done

n=0
for case in signed wrong-secret unknown-key; do
    key="$out/ciao-test.key"
    [[ $case == wrong-secret ]] && key="$work/wrong.key"
    [[ $case == unknown-key ]] && key="$work/unknown.key"
    printf 'server 127.0.0.1 5300\nzone lab.example.\nupdate add ciao.lab.example. 300 TXT "v=1"\nsend\n' |
        ip netns exec "$ns" timeout 10 nsupdate -k "$key" >"$work/nsupdate-$case.log" 2>&1 || true
    # nsupdate first asks for the zone's SOA when it is not told the zone; told it, the UPDATE is the one exchange.
    last=$(ls "$work" | grep -c -- "-request.bin$" || true)
    for ((i = n; i < last; i++)); do
        if [[ $(od -An -tx1 -j2 -N1 "$work/$i-request.bin" | tr -d ' ') == 28 ]]; then
            cp "$work/$i-request.bin" "$out/$case-request.bin"
            cp "$work/$i-response.bin" "$out/$case-response.bin"
        fi
    done
    n=$last
    echo "capture-tsig.sh: $case: $(cat "$work/nsupdate-$case.log" | tr '\n' ' ')"
done
ls -l "$out"
