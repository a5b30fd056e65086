#!/usr/bin/env bash
# capture-peer-packets.sh — capture real mDNS / DNS-SD packets sent by avahi-daemon and
# python-zeroconf, and turn them into test resources for CiaoWireTests.
#
# Usage (as root, on Linux):
#   bash Scripts/capture-peer-packets.sh <outdir>
#   e.g. bash Scripts/capture-peer-packets.sh Tests/CiaoWireTests/Captures
#
# Writes into <outdir>:
#   <peer>-<what>-<n>.bin   one raw UDP payload each (the DNS message only)
#   <peer>-<what>-<n>.txt   tshark's verbose decoding of that one packet
#   captures-summary.md     the per-file facts table (header counts, records, ...)
# and leaves in the work directory (printed at the end; kept when CIAO_CAPTURE_KEEP=1):
#   capture.pcapng, every payload as all/NNNN-*.bin, index.tsv, peer logs.
#
# NETWORK SAFETY: nothing is sent on the host's interfaces. Everything runs inside
# network namespaces created here (names ciaocap<PID>-*), joined by a bridge that lives
# in its own namespace; addresses come from 198.18.0.0/15 and fd00:198:18::/64. The
# namespaces, daemons and captures are removed on exit (trap), killed by PID only.
#
# Needs (installs nothing itself):
#   Debian packages: avahi-daemon avahi-utils dbus-daemon (or dbus) iproute2 tshark
#                    (dumpcap) python3 python3-dbus
#   pip package:     zeroconf (in the python named by $ZEROCONF_PYTHON, default python3)
# Environment:
#   ZEROCONF_PYTHON  python with `zeroconf` installed   (default: python3)
#   DBUS_PYTHON      python with Debian's python3-dbus   (default: /usr/bin/python3)
#   CIAO_CAPTURE_KEEP=1  keep the work directory (pcap, all payloads, logs)
#
# Scenarios, in order (phase markers are recorded so packets can be attributed):
#   start      avahi-daemon starts in host "av" (host-name probes/announcements)
#   avpub      av publishes "Café Dot.Back\slash._ciaotest._tcp.local" port 8080 through
#              the D-Bus API (so the TXT can hold binary bytes): k=v, empty=, flag, bin=00 ff 80
#   zcpub      python-zeroconf in host "zc" registers "Zeroconf Ciao Ü._ciaotest._tcp.local"
#              port 8081, TXT {k: v, empty: '', flag: None, bin: 00 ff 80}, IPv4 + IPv6
#   avbrowse   a second avahi-daemon in host "ab" starts (empty cache) and
#              `avahi-browse -r _ciaotest._tcp` runs against it for 6 s: avahi queries (the
#              second query carries known answers), both publishers respond
#   zcbrowse   a python-zeroconf ServiceBrowser in host "zb" browses for 9 s and resolves
#              what it finds: its later queries carry known answers
#   zcbye      the zeroconf publisher unregisters (goodbye, TTL 0)
#   avbye      the avahi entry group is freed (goodbye, TTL 0)
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "capture-peer-packets: must run as root" >&2; exit 1; }
[ $# -eq 1 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
OUT=$1
ZEROCONF_PYTHON=${ZEROCONF_PYTHON:-python3}
DBUS_PYTHON=${DBUS_PYTHON:-/usr/bin/python3}
for c in ip avahi-daemon avahi-browse dbus-daemon dumpcap tshark unshare; do
  command -v "$c" >/dev/null || { echo "capture-peer-packets: missing $c" >&2; exit 1; }
done
"$ZEROCONF_PYTHON" -c 'import zeroconf' 2>/dev/null ||
  { echo "capture-peer-packets: $ZEROCONF_PYTHON cannot import zeroconf (set ZEROCONF_PYTHON)" >&2; exit 1; }
"$DBUS_PYTHON" -c 'import dbus' 2>/dev/null ||
  { echo "capture-peer-packets: $DBUS_PYTHON cannot import dbus (python3-dbus)" >&2; exit 1; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
INTEROP=$(cd "$(dirname "$0")/../Tests/Interop" && pwd)
P="ciaocap$$"                       # namespace prefix, unique per run
SW="$P-sw"
WORK=$(mktemp -d /tmp/ciao-capture.XXXXXX)
chmod 755 "$WORK"
V4NET=198.18.53
V6NET=fd00:198:18:
IFN=cap0
declare -A HOSTNUM=([av]=1 [zc]=2 [ab]=3 [zb]=4)
PIDS=()                             # every background process we started, killed by PID

log() { echo "capture: $*" >&2; }
nsx() { local h=$1; shift; ip netns exec "$P-$h" "$@"; }

cleanup() {
  set +e
  local i pid
  # stop in reverse start order: TERM, short wait, KILL
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    pid=${PIDS[i]}
    kill -0 "$pid" 2>/dev/null || continue
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  # safety net: anything still running inside our own namespaces was started by us
  for h in av zc ab zb sw; do
    for pid in $(ip netns pids "$P-$h" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
  done
  sleep 0.5
  for h in av zc ab zb sw; do
    for pid in $(ip netns pids "$P-$h" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  done
  for h in av zc ab zb sw; do
    ip netns list | awk '{print $1}' | grep -qx "$P-$h" && ip netns del "$P-$h"
  done
  if [ "${CIAO_CAPTURE_KEEP:-}" = 1 ]; then log "work directory kept: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mark() { echo "$1 $(date +%s.%N)" >>"$WORK/phases.txt"; log "phase $1"; }

# ------------------------------------------------------------------ network
ip netns add "$SW"
ip netns exec "$SW" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip -n "$SW" link set lo up
ip -n "$SW" link add br0 type bridge stp_state 0 forward_delay 0 mcast_snooping 0
ip -n "$SW" link set br0 up
for h in av zc ab zb; do
  n=${HOSTNUM[$h]}
  ip netns add "$P-$h"
  nsx "$h" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 net.ipv6.conf.default.disable_ipv6=0 \
    net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  ip -n "$P-$h" link set lo up
  # the veth is created inside the host namespace and its peer is moved straight into the switch
  ip -n "$P-$h" link add "$IFN" address "02:00:c6:12:35:0$n" type veth peer name "p-$h" netns "$SW"
  ip -n "$SW" link set "p-$h" master br0 up
  nsx "$h" sysctl -qw "net.ipv6.conf.$IFN.accept_dad=0"
  ip -n "$P-$h" link set "$IFN" multicast on up
  ip -n "$P-$h" addr add "$V4NET.$n/24" dev "$IFN"
  ip -n "$P-$h" -6 addr add "$V6NET:$n/64" dev "$IFN" nodad
  ip -n "$P-$h" route add 224.0.0.0/4 dev "$IFN"
done
# wait for the link-local addresses (DAD is off, so this is quick)
for _ in $(seq 30); do
  busy=""
  for h in av zc ab zb; do ip -n "$P-$h" -6 addr show dev "$IFN" | grep -q tentative && busy=1; done
  [ -z "$busy" ] && break; sleep 0.1
done
sleep 0.5

# ------------------------------------------------------------------ capture (on the bridge)
touch "$WORK/capture.pcapng"; chmod 666 "$WORK/capture.pcapng"
ip netns exec "$SW" dumpcap -q -i br0 -f "udp port 5353" -a duration:300 -w "$WORK/capture.pcapng" \
  </dev/null >"$WORK/dumpcap.log" 2>&1 &
DUMPCAP=$!; PIDS+=("$DUMPCAP")
for _ in $(seq 50); do grep -q "Capturing on" "$WORK/dumpcap.log" 2>/dev/null && break; sleep 0.1; done
sleep 0.5

# ------------------------------------------------------------------ avahi (private dbus per host)
start_avahi() {
  local h=$1 d="$WORK/$1"
  mkdir -p "$d/dbus" "$d/avahi-run" "$d/services"
  chmod 755 "$d" "$d/dbus"
  # the interop lab's system-bus configuration (Tests/Interop/lab.py), listening in $d/dbus
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import lab
print(lab.DBUS_CONF.format(sock=sys.argv[2]), end="")' "$INTEROP" "$d/dbus/system_bus_socket" >"$d/dbus.conf"
  cat >"$d/avahi-daemon.conf" <<EOF
[server]
host-name=ciao-$h
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces=$IFN
enable-dbus=yes
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-addresses=yes
publish-aaaa-on-ipv4=yes
publish-a-on-ipv6=no
[reflector]
[rlimits]
EOF
  # background processes are started with `ip netns exec` directly (it execs), so $! is
  # the daemon's own PID
  ip netns exec "$P-$h" dbus-daemon --config-file="$d/dbus.conf" --nofork --nopidfile </dev/null >"$d/dbus.log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 50); do [ -S "$d/dbus/system_bus_socket" ] && break; sleep 0.1; done
  [ -S "$d/dbus/system_bus_socket" ] || { cat "$d/dbus.log" >&2; exit 1; }
  # private mount namespace: /run/avahi-daemon (pid file, socket) and /etc/avahi/services
  # (empty: no static services) are per host; the real ones are never touched
  mkdir -p /run/avahi-daemon
  # shellcheck disable=SC2016
  ip netns exec "$P-$h" env DBUS_SYSTEM_BUS_ADDRESS="unix:path=$d/dbus/system_bus_socket" \
    unshare -m --propagation private sh -c '
      mount --bind "$1/avahi-run" /run/avahi-daemon &&
      mount --bind "$1/services" /etc/avahi/services &&
      exec avahi-daemon -f "$1/avahi-daemon.conf" --no-drop-root --no-chroot --no-rlimits --no-proc-title' \
    sh "$d" </dev/null >"$d/avahi.log" 2>&1 &
  PIDS+=("$!")
  for _ in $(seq 100); do grep -q "Server startup complete" "$d/avahi.log" 2>/dev/null && return 0; sleep 0.1; done
  cat "$d/avahi.log" >&2; log "avahi-daemon in $h did not start"; exit 1
}
bus_of() { echo "unix:path=$WORK/$1/dbus/system_bus_socket"; }

# ------------------------------------------------------------------ python peers
cat >"$WORK/avahi_publish.py" <<'EOF'
# Publish one service through avahi's D-Bus API (TXT may hold any bytes); on SIGTERM free
# the entry group (avahi sends goodbyes) and exit.
import signal, sys, time
import dbus
name, typ, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
txt = [b"k=v", b"empty=", b"flag", b"bin=\x00\xff\x80"]
bus = dbus.SystemBus()
server = dbus.Interface(bus.get_object("org.freedesktop.Avahi", "/"), "org.freedesktop.Avahi.Server")
print("avahi version:", server.GetVersionString(), "host:", server.GetHostNameFqdn(), flush=True)
g = dbus.Interface(bus.get_object("org.freedesktop.Avahi", server.EntryGroupNew()),
                   "org.freedesktop.Avahi.EntryGroup")
g.AddService(dbus.Int32(-1), dbus.Int32(-1), dbus.UInt32(0), name, typ, "", "", dbus.UInt16(port),
             dbus.Array([dbus.Array([dbus.Byte(b) for b in t], signature="y") for t in txt], signature="ay"))
g.Commit()
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
t0 = time.monotonic()
while int(g.GetState()) != 2 and time.monotonic() - t0 < 20:
    time.sleep(0.05)
print("established" if int(g.GetState()) == 2 else "NOT established: %d" % g.GetState(), flush=True)
while not stop:
    time.sleep(0.05)
g.Free()
print("freed", flush=True)
time.sleep(1.5)
EOF

cat >"$WORK/zc_common.py" <<'EOF'
import socket, ifaddr
from zeroconf import IPVersion
def lab(ifname="cap0"):
    v4, v6, idx = [], [], None
    for ad in ifaddr.get_adapters():
        if ad.nice_name == ifname or ad.name == ifname:
            idx = ad.index
            for ip in ad.ips:
                (v4.append(ip.ip) if ip.is_IPv4 else v6.append(ip.ip[0]))
    # interfaces: the IPv4 address and the interface index (IPv6) of the lab link only
    return v4 + [idx], IPVersion.All, v4, v6
EOF

cat >"$WORK/zc_publish.py" <<'EOF'
import asyncio, signal, socket, sys
sys.path.insert(0, sys.argv[1])
from zc_common import lab
from zeroconf import ServiceInfo, __version__
from zeroconf.asyncio import AsyncZeroconf
async def main():
    ifs, ipv, v4, v6 = lab()
    azc = AsyncZeroconf(interfaces=ifs, ip_version=ipv)
    typ = "_ciaotest._tcp.local."
    addrs = [socket.inet_pton(socket.AF_INET, a) for a in v4] + \
            [socket.inet_pton(socket.AF_INET6, a) for a in v6 if not a.lower().startswith("fe80")]
    info = ServiceInfo(typ, "Zeroconf Ciao \u00dc." + typ, port=8081, server="ciao-zc.local.",
                       properties={b"k": b"v", b"empty": b"", b"flag": None, b"bin": b"\x00\xff\x80"},
                       addresses=addrs)
    print("zeroconf", __version__, "addresses", info.parsed_addresses(), flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await (await azc.async_register_service(info))
    print("registered", flush=True)
    await stop.wait()
    await azc.async_unregister_service(info)
    print("unregistered", flush=True)
    await asyncio.sleep(1)
    await azc.async_close()
asyncio.run(main())
EOF

cat >"$WORK/zc_browse.py" <<'EOF'
import asyncio, sys, time
sys.path.insert(0, sys.argv[1])
from zc_common import lab
from zeroconf import ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
async def main():
    ifs, ipv, _, _ = lab()
    azc = AsyncZeroconf(interfaces=ifs, ip_version=ipv)
    tasks = []
    async def resolve(name, typ):
        info = AsyncServiceInfo(typ, name)
        ok = await info.async_request(azc.zeroconf, 3000)
        print("resolved" if ok else "unresolved", name, info.server, info.port,
              info.parsed_addresses(), info.properties, flush=True)
    def handler(zeroconf, service_type, name, state_change):
        print(round(time.monotonic(), 3), state_change, name, flush=True)
        if state_change is ServiceStateChange.Added:
            tasks.append(asyncio.ensure_future(resolve(name, service_type)))
    browser = AsyncServiceBrowser(azc.zeroconf, ["_ciaotest._tcp.local."], handlers=[handler])
    await asyncio.sleep(float(sys.argv[2]))
    await browser.async_cancel()
    await azc.async_close()
asyncio.run(main())
EOF

# ------------------------------------------------------------------ scenarios
mark start
start_avahi av
sleep 4                                     # let the host-name announcements finish

mark avpub
ip netns exec "$P-av" env DBUS_SYSTEM_BUS_ADDRESS="$(bus_of av)" "$DBUS_PYTHON" "$WORK/avahi_publish.py" \
  'Café Dot.Back\slash' _ciaotest._tcp 8080 >"$WORK/avahi_publish.log" 2>&1 &
AVPUB=$!; PIDS+=("$AVPUB")
for _ in $(seq 100); do grep -q established "$WORK/avahi_publish.log" && break; sleep 0.1; done
grep -q '^established' "$WORK/avahi_publish.log" || { cat "$WORK/avahi_publish.log" >&2; exit 1; }
sleep 8                                     # probes + all announcements

mark zcpub
ip netns exec "$P-zc" "$ZEROCONF_PYTHON" "$WORK/zc_publish.py" "$WORK" >"$WORK/zc_publish.log" 2>&1 &
ZCPUB=$!; PIDS+=("$ZCPUB")
for _ in $(seq 100); do grep -q registered "$WORK/zc_publish.log" && break; sleep 0.1; done
grep -q '^registered' "$WORK/zc_publish.log" || { cat "$WORK/zc_publish.log" >&2; exit 1; }
sleep 8

mark avbrowse
start_avahi ab
sleep 4
nsx ab env DBUS_SYSTEM_BUS_ADDRESS="$(bus_of ab)" timeout -s INT 6 avahi-browse -r -p _ciaotest._tcp \
  >"$WORK/avahi_browse.log" 2>&1 || true
sleep 3

mark zcbrowse
nsx zb "$ZEROCONF_PYTHON" "$WORK/zc_browse.py" "$WORK" 9 >"$WORK/zc_browse.log" 2>&1 || true
sleep 2

mark zcbye
kill -TERM "$ZCPUB"
for _ in $(seq 50); do kill -0 "$ZCPUB" 2>/dev/null || break; sleep 0.1; done
sleep 2

mark avbye
kill -TERM "$AVPUB"
for _ in $(seq 50); do kill -0 "$AVPUB" 2>/dev/null || break; sleep 0.1; done
sleep 2
mark end

kill -INT "$DUMPCAP"
for _ in $(seq 50); do kill -0 "$DUMPCAP" 2>/dev/null || break; sleep 0.1; done

# ------------------------------------------------------------------ extract + select
AVAHI_VERSION=$(avahi-daemon --version 2>&1 | awk '{print $2}')
ZEROCONF_VERSION=$("$ZEROCONF_PYTHON" -c 'import zeroconf; print(zeroconf.__version__)')
TSHARK_VERSION=$(tshark --version 2>/dev/null | head -1 | sed 's/\. *Running.*//')
tshark -r "$WORK/capture.pcapng" -Y mdns -T fields -E separator=/t \
  -e frame.number -e frame.time_epoch -e ip.src -e ipv6.src -e udp.srcport -e udp.length -e udp.payload \
  >"$WORK/fields.tsv" 2>/dev/null
log "$(wc -l <"$WORK/fields.tsv") mDNS packets captured"

cat >"$WORK/select.py" <<'EOF'
import os, struct, sys, hashlib
work, out = sys.argv[1], sys.argv[2]
ver = dict(a.split("=", 1) for a in sys.argv[3:])
TYPES = {1: "A", 2: "NS", 5: "CNAME", 12: "PTR", 13: "HINFO", 16: "TXT", 28: "AAAA", 33: "SRV",
         41: "OPT", 47: "NSEC", 255: "ANY"}
tname = lambda t: TYPES.get(t, "TYPE%d" % t)

def esc_label(b):
    s = b.decode("utf-8", "backslashreplace")
    return s.replace("\\", "\\\\").replace(".", "\\.")

class Msg:
    def __init__(self, buf):
        self.buf, self.ptrs = buf, []   # ptrs: (offset of pointer, target)
    def name(self, off):
        labels, end, jumped, seen = [], None, False, set()
        while True:
            ln = self.buf[off]
            if ln & 0xC0 == 0xC0:
                tgt = ((ln & 0x3F) << 8) | self.buf[off + 1]
                self.ptrs.append((off, tgt))
                if end is None: end = off + 2
                if tgt in seen: raise ValueError("pointer loop")
                seen.add(tgt); off = tgt
                continue
            if ln == 0:
                if end is None: end = off + 1
                return ".".join(esc_label(l) for l in labels) + ".", end
            labels.append(self.buf[off + 1: off + 1 + ln]); off += 1 + ln

def txt_strings(r):
    o, out = 0, []
    while o < len(r):
        n = r[o]; out.append(r[o + 1:o + 1 + n]); o += 1 + n
    return out

def show_bytes(b):
    s = ""
    for c in b:
        s += chr(c) if 0x20 <= c < 0x7f and c != 0x5c else "\\x%02x" % c
    return '"%s"' % s

def rdata(m, t, off, rdlen):
    r = m.buf[off:off + rdlen]
    if t == 1: return ".".join(str(x) for x in r)
    if t == 28:
        import ipaddress; return str(ipaddress.IPv6Address(r))
    if t in (12, 5, 2): return m.name(off)[0]
    if t == 33:
        p, w, port = struct.unpack("!HHH", r[:6]); return "prio=%d weight=%d port=%d target=%s" % (p, w, port, m.name(off + 6)[0])
    if t == 16: return " ".join(show_bytes(s) for s in txt_strings(r)) + " (rdata hex %s)" % r.hex()
    if t == 47:
        nxt, o = m.name(off); bm = []
        while o < off + rdlen:
            win, ln = m.buf[o], m.buf[o + 1]
            for i, byte in enumerate(m.buf[o + 2:o + 2 + ln]):
                for bit in range(8):
                    if byte & (0x80 >> bit): bm.append(tname(win * 256 + i * 8 + bit))
            o += 2 + ln
        return "next=%s types=[%s] (rdata hex %s)" % (nxt, ",".join(bm), r.hex())
    return "hex " + r.hex()

def parse(buf):
    m = Msg(buf)
    qid, flags, qd, an, ns, ar = struct.unpack("!6H", buf[:12])
    o, qs, secs, rdr = 12, [], {"an": [], "ns": [], "ar": []}, []
    for _ in range(qd):
        n, o = m.name(o); t, c = struct.unpack("!HH", buf[o:o + 4]); o += 4
        qs.append((n, t, c))
    for sec, cnt in (("an", an), ("ns", ns), ("ar", ar)):
        for _ in range(cnt):
            n, o = m.name(o); t, c, ttl, rl = struct.unpack("!HHIH", buf[o:o + 10]); o += 10
            secs[sec].append((n, t, c, ttl, rdata(m, t, o, rl), rl)); rdr.append((o, o + rl)); o += rl
    assert o == len(buf), "trailing bytes"
    return dict(id=qid, flags=flags, qd=qd, an=an, ns=ns, ar=ar, qs=qs, secs=secs, ptrs=m.ptrs, rdr=rdr)

phases = [(l.split()[0], float(l.split()[1])) for l in open(os.path.join(work, "phases.txt"))]
def phase_of(t):
    cur = "pre"
    for n, pt in phases:
        if t >= pt: cur = n
    return cur

HOSTS = {"198.18.53.1": "avahi", "198.18.53.2": "zeroconf", "198.18.53.3": "avahi-browser", "198.18.53.4": "zeroconf-browser"}
MACS_LL = {"1": "avahi", "2": "zeroconf", "3": "avahi-browser", "4": "zeroconf-browser"}
def peer_of(v4, v6):
    if v4: return HOSTS.get(v4, "?")
    # link-local addresses are EUI-64 of 02:00:c6:12:35:0N, global ones are fd00:198:18::N
    last = v6.rsplit(":", 1)[-1]
    return MACS_LL.get(last[-1], "?") if v6.startswith("fe80") or v6.startswith("fd00") else "?"

def kind_of(p, phase, peer):
    if p["flags"] & 0x8000:
        rrs = p["secs"]["an"]
        # avahi's goodbye also carries its host's A/AAAA with their normal TTL: any TTL 0 counts
        if any(r[3] == 0 for r in rrs): return "goodbye"
        own = {"avahi": ("start", "avpub"), "zeroconf": ("zcpub",), "avahi-browser": ("avbrowse",)}
        if phase in own.get(peer, ()): return "announce"
        return "response"
    if p["ns"]: return "probe"
    if p["an"]: return "query-knownanswers"
    return "query"

os.makedirs(os.path.join(work, "all"), exist_ok=True)
pkts = []
for line in open(os.path.join(work, "fields.tsv")):
    f = line.rstrip("\n").split("\t")
    num, t, v4, v6, sport, ulen, hexp = f[:7]
    buf = bytes.fromhex(hexp)
    assert len(buf) == int(ulen) - 8, ("length mismatch", num)
    p = parse(buf)
    p.update(num=int(num), t=float(t), fam="IPv4" if v4 else "IPv6", src=v4 or v6, sport=int(sport),
             buf=buf, phase=phase_of(float(t)), peer=peer_of(v4, v6))
    p["kind"] = kind_of(p, p["phase"], p["peer"])
    pkts.append(p)
    with open(os.path.join(work, "all", "%04d-%s-%s-%s.bin" % (p["num"], p["peer"], p["kind"], p["fam"])), "wb") as fh:
        fh.write(buf)
with open(os.path.join(work, "index.tsv"), "w") as fh:
    for p in pkts:
        fh.write("%d\t%.3f\t%s\t%s\t%s\t%s\t%d/%d/%d/%d\t%d\n" % (p["num"], p["t"] - phases[0][1], p["phase"], p["peer"],
                 p["fam"], p["kind"], p["qd"], p["an"], p["ns"], p["ar"], len(p["buf"])))

def is_service(p):
    return any("_ciaotest" in r[0] or "_ciaotest" in (r[4] if isinstance(r[4], str) else "")
               for s in p["secs"].values() for r in s) or any("_ciaotest" in q[0] for q in p["qs"])

# (file stem, peer, kind, family, phase filter or None, extra predicate or None, description)
def zc_all_answers(p):
    return is_service(p) and p["ar"] == 0

WANT = [
    ("avahi-hostprobe-1", "avahi", "probe", "IPv4", "start", None, "avahi-daemon start-up: host-name probe (IPv4)"),
    ("avahi-hostannounce-1", "avahi", "announce", "IPv4", "start", None, "avahi-daemon start-up: host-name announcement (IPv4)"),
    ("avahi-probe-1", "avahi", "probe", "IPv4", "avpub", is_service, "service probe (IPv4)"),
    ("avahi-probe-2", "avahi", "probe", "IPv6", "avpub", is_service, "service probe (IPv6)"),
    ("avahi-announce-1", "avahi", "announce", "IPv4", "avpub", is_service, "service announcement (IPv4)"),
    ("avahi-announce-2", "avahi", "announce", "IPv6", "avpub", is_service, "service announcement (IPv6)"),
    ("avahi-query-1", "avahi-browser", "query", "IPv4", "avbrowse", is_service, "avahi-browse via avahi-daemon: first PTR query (IPv4)"),
    ("avahi-query-knownanswers-1", "avahi-browser", "query-knownanswers", "IPv4", "avbrowse", is_service, "avahi-browse via avahi-daemon: later query with known answers (IPv4)"),
    ("avahi-response-1", "avahi", "response", "IPv4", "avbrowse", is_service, "response to avahi-browse's query (IPv4)"),
    ("avahi-response-2", "avahi", "response", "IPv4", "zcbrowse", is_service, "response to the zeroconf browser's query (IPv4)"),
    ("avahi-goodbye-1", "avahi", "goodbye", "IPv4", "avbye", is_service, "service goodbye after EntryGroup.Free (IPv4)"),
    ("avahi-goodbye-2", "avahi", "goodbye", "IPv6", "avbye", is_service, "service goodbye after EntryGroup.Free (IPv6)"),
    ("zeroconf-probe-1", "zeroconf", "probe", "IPv4", "zcpub", is_service, "registration probe (IPv4)"),
    ("zeroconf-announce-1", "zeroconf", "announce", "IPv4", "zcpub", zc_all_answers, "service announcement (IPv4)"),
    ("zeroconf-announce-2", "zeroconf", "announce", "IPv6", "zcpub", zc_all_answers, "service announcement (IPv6)"),
    ("zeroconf-response-1", "zeroconf", "response", "IPv4", "avbrowse", is_service, "response to avahi-browse's PTR query (IPv4)"),
    ("zeroconf-query-1", "zeroconf-browser", "query", "IPv4", "zcbrowse", is_service, "ServiceBrowser's first query (IPv4)"),
    ("zeroconf-query-knownanswers-1", "zeroconf-browser", "query-knownanswers", "IPv4", "zcbrowse", is_service, "ServiceBrowser query with known answers (IPv4)"),
    ("zeroconf-goodbye-1", "zeroconf", "goodbye", "IPv4", "zcbye", is_service, "service goodbye after unregister (IPv4)"),
    ("zeroconf-goodbye-2", "zeroconf", "goodbye", "IPv6", "zcbye", is_service, "service goodbye after unregister (IPv6)"),
]
chosen, seen = [], {}
for stem, peer, kind, fam, phase, pred, desc in WANT:
    for p in pkts:
        if (p["peer"], p["kind"], p["fam"]) != (peer, kind, fam): continue
        if phase and p["phase"] != phase: continue
        if pred and not pred(p): continue
        h = hashlib.sha256(p["buf"]).hexdigest()
        if h in seen:
            print("capture: %s: frame %d is byte-identical to %s, skipped" % (stem, p["num"], seen[h]), file=sys.stderr)
            break
        seen[h] = stem; chosen.append((stem, desc, p)); break
    else:
        print("capture: no packet for", stem, file=sys.stderr)

def cls(c):
    return ("IN" if c & 0x7FFF == 1 else "CLASS%d" % (c & 0x7FFF)), bool(c & 0x8000)

def describe(stem, desc, p):
    L = []
    b = p["buf"]
    L.append("### %s.bin\n" % stem)
    L.append("- %s; sender %s (%s %s, port %d); frame %d of the capture, phase `%s`; %d bytes"
             % (desc, p["peer"], p["fam"], p["src"], p["sport"], p["num"], p["phase"], len(b)))
    L.append("- header: id=0x%04x flags=0x%04x (%s%s) QD=%d AN=%d NS=%d AR=%d"
             % (p["id"], p["flags"], "response" if p["flags"] & 0x8000 else "query",
                ", AA" if p["flags"] & 0x0400 else "", p["qd"], p["an"], p["ns"], p["ar"]))
    for n, t, c in p["qs"]:
        k, bit = cls(c)
        L.append("- Q  `%s` %s %s%s" % (n, tname(t), k, " **QU**" if bit else " QM"))
    for sec, label in (("an", "AN"), ("ns", "NS"), ("ar", "AR")):
        for n, t, c, ttl, rd, rl in p["secs"][sec]:
            k, bit = cls(c)
            L.append("- %s `%s` %s %s%s ttl=%d rdlen=%d: %s" % (label, n, tname(t), k, " cache-flush" if bit else "", ttl, rl, rd))
    fw = [(a, t) for a, t in p["ptrs"] if t >= a]
    uniq = sorted(set(p["ptrs"]))
    into_rd = [(a, t) for a, t in uniq if any(lo <= t < hi for lo, hi in p["rdr"])]
    L.append("- compression pointers: %d (offset->target: %s)%s%s" % (
        len(uniq), ", ".join("%d->%d" % x for x in uniq) if uniq else "none",
        "; **FORWARD pointers: %s**" % ", ".join("%d->%d" % x for x in fw) if fw else "; all backward",
        "; targets inside an earlier record's RDATA: %s" % ", ".join("%d->%d" % x for x in into_rd) if into_rd else ""))
    L.append("")
    return "\n".join(L)

import datetime
summary = ["# Per-file facts (generated by Scripts/capture-peer-packets.sh)", "",
           "Captured %s UTC; avahi-daemon %s, python-zeroconf %s, %s" % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"), ver["avahi"], ver["zeroconf"], ver["tshark"]), "",
           "Names are shown with `\\.` and `\\\\` escaping a literal dot / backslash inside a label; labels are UTF-8. "
           "TXT strings are shown with non-printable bytes as \\xNN. Offsets are from the start of the DNS message.", ""]
for stem, desc, p in chosen:
    with open(os.path.join(out, stem + ".bin"), "wb") as fh: fh.write(p["buf"])
    summary.append(describe(stem, desc, p))
    print("%s\t%d" % (stem, p["num"]))
summary += ["## Timeline of every captured packet", "",
            "frame, seconds since start, phase, sender, family, kind, QD/AN/NS/AR, bytes", "", "```"]
summary += [l.rstrip("\n") for l in open(os.path.join(work, "index.tsv"))] + ["```", ""]
with open(os.path.join(out, "captures-summary.md"), "w") as fh: fh.write("\n".join(summary))
EOF

"$DBUS_PYTHON" "$WORK/select.py" "$WORK" "$OUT" "avahi=$AVAHI_VERSION" "zeroconf=$ZEROCONF_VERSION" \
  "tshark=$TSHARK_VERSION" >"$WORK/chosen.tsv"
while IFS=$'\t' read -r stem num; do
  tshark -r "$WORK/capture.pcapng" -Y "frame.number == $num" -V -O mdns 2>/dev/null >"$OUT/$stem.txt"
  # sanity: the .bin is exactly that frame's UDP payload
  want=$(tshark -r "$WORK/capture.pcapng" -Y "frame.number == $num" -T fields -e udp.length 2>/dev/null)
  [ "$(stat -c %s "$OUT/$stem.bin")" -eq $((want - 8)) ] || { log "size mismatch for $stem"; exit 1; }
done <"$WORK/chosen.tsv"
log "wrote $(wc -l <"$WORK/chosen.tsv") packets to $OUT (avahi $AVAHI_VERSION, zeroconf $ZEROCONF_VERSION)"
