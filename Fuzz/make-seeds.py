#!/usr/bin/env python3
"""make-seeds.py — write the synthetic part of the libFuzzer seed corpus to Fuzz/Seeds/.

Usage: python3 Fuzz/make-seeds.py [OUTDIR]      (default: Fuzz/Seeds next to this script)

Only needed to regenerate the seeds; Scripts/fuzz.sh uses the committed files and needs no Python.
Real packets captured from avahi and python-zeroconf (Tests/CiaoWireTests/Captures/*.bin) are copied
in as capture-*.bin by this script too, when present.

Seeds are small DNS messages chosen so the fuzzer starts from every decoder path: each RDATA type
CiaoWire knows (A, AAAA, PTR, SRV, TXT, NSEC, OPT) plus opaque ones, compression in all its forms
(backward, forward, chained, into the middle of a label, loops, out of bounds), the mDNS bits (QU,
cache-flush, TC known-answer lists), malformed RDATA that must be skipped, and truncations. They are
built by hand here, not by CiaoWire's encoder, so they include things our encoder never writes.
"""
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "Seeds")

A, NS, CNAME, PTR, HINFO, TXT, AAAA, SRV, OPT, NSEC, ANY = 1, 2, 5, 12, 13, 16, 28, 33, 41, 47, 255
IN, TOP = 1, 0x8000  # class IN; the top bit is QU in questions and cache-flush in records


def u16(v):
    return struct.pack(">H", v)


def u32(v):
    return struct.pack(">I", v)


def labels(*parts):
    """Uncompressed labels without the final zero byte (so a pointer can follow)."""
    out = b""
    for p in parts:
        b = p.encode() if isinstance(p, str) else p
        assert 0 < len(b) <= 63
        out += bytes([len(b)]) + b
    return out


def name(text):
    """Uncompressed name from dotted text (no escapes needed for our seeds)."""
    return labels(*[p for p in text.split(".") if p]) + b"\0"


def ptr(offset):
    return u16(0xC000 | offset)


def header(id=0, flags=0, qd=0, an=0, ns=0, ar=0):
    return u16(id) + u16(flags) + u16(qd) + u16(an) + u16(ns) + u16(ar)


def question(n, qtype, qclass=IN):
    return n + u16(qtype) + u16(qclass)


def rr(n, rtype, rdata, rclass=IN, ttl=120):
    return n + u16(rtype) + u16(rclass) + u32(ttl) + u16(len(rdata)) + rdata


def txt(*strings):
    return b"".join(bytes([len(s)]) + s for s in strings)


def nsec_bitmap(types):
    """RFC 4034 §4.1.2 window blocks for a set of types."""
    out = b""
    for window in sorted({t >> 8 for t in types}):
        bits = bytearray(32)
        for t in types:
            if t >> 8 == window:
                bits[(t & 0xFF) >> 3] |= 0x80 >> (t & 7)
        length = max(i for i, b in enumerate(bits) if b) + 1
        out += bytes([window, length]) + bytes(bits[:length])
    return out


seeds = {}

# --- Queries -----------------------------------------------------------------------------------
seeds["query-ptr-qm"] = header(qd=1) + question(name("_services._dns-sd._udp.local"), PTR)
seeds["query-ptr-qu"] = header(qd=1) + question(name("_http._tcp.local"), PTR, IN | TOP)
# Several questions sharing a suffix through backward pointers, one of them QU, one ANY/ANY.
q = header(id=0x1234, qd=3)
q += question(name("_ipp._tcp.local"), PTR)  # _ipp at 12, _tcp at 17, local at 22
q += question(labels("_printer") + ptr(17), PTR, IN | TOP)
q += question(labels("host") + ptr(22), ANY, 255)
seeds["query-multi-compressed"] = q

# Known-answer list (RFC 6762 §7.1): the query carries the PTRs it already has, TC set as if more
# follow (§7.2), and the continuation packet with only known answers.
ka = header(qd=1, an=2, flags=0x0200)
ka += question(name("_http._tcp.local"), PTR)  # _http at 12, _tcp at 18, local at 23
ka += rr(ptr(12), PTR, labels("Web One") + ptr(12), ttl=4500)
ka += rr(ptr(12), PTR, labels("web two") + ptr(12), ttl=4500)
seeds["query-known-answers-tc"] = ka
seeds["query-known-answers-continuation"] = (
    header(an=1) + rr(name("_http._tcp.local"), PTR, labels("Web Three") + ptr(12), ttl=4500))

# Probe: QU ANY question plus the proposed records in the authority section (RFC 6762 §8.1-8.2).
pr = header(qd=1, ns=2)
pr += question(name("Ciao Box._http._tcp.local"), ANY, IN | TOP)  # "Ciao Box" at 12
pr += rr(ptr(12), SRV, u16(0) + u16(0) + u16(8080) + name("ciao.local"))
pr += rr(ptr(12), TXT, txt(b"path=/"), ttl=4500)
seeds["probe-qu-any-authority"] = pr

# --- Responses ---------------------------------------------------------------------------------
# A full DNS-SD answer: PTR, then SRV/TXT/A/AAAA/NSEC as additionals, compressed throughout
# (names in PTR, SRV and NSEC RDATA included), cache-flush on the unique records.
r = header(flags=0x8400, an=1, ar=6)
r += rr(name("_http._tcp.local"), PTR, labels("My Printer") + ptr(12), ttl=4500)
# Offsets: _http 12, _tcp 18, local 23, root 29; the PTR RDATA name "My Printer" starts at 12+18+10=40.
inst = 40
host = len(r) + 2 + 10 + 6  # the SRV target: after its owner pointer, fixed fields, prio/weight/port
r += rr(ptr(inst), SRV, u16(0) + u16(0) + u16(631) + labels("printer") + ptr(23), IN | TOP)
r += rr(ptr(inst), TXT, txt(b"txtvers=1", b"rp=ipp/print", b"note=Caf\xc3\xa9"), IN | TOP, 4500)
r += rr(ptr(host), A, bytes([169, 254, 1, 2]), IN | TOP)
r += rr(ptr(host), AAAA, bytes.fromhex("fe800000000000000000000000000001"), IN | TOP)
r += rr(ptr(inst), NSEC, ptr(inst) + nsec_bitmap([TXT, SRV]), IN | TOP, 4500)
r += rr(ptr(host), NSEC, ptr(host) + nsec_bitmap([A, AAAA]), IN | TOP)
seeds["response-dnssd-compressed"] = r

# The same records uncompressed, so the encoder's compression is what the round trip exercises.
u = header(flags=0x8400, an=1, ar=5)
u += rr(name("_http._tcp.local"), PTR, name("My Printer._http._tcp.local"), ttl=4500)
u += rr(name("My Printer._http._tcp.local"), SRV, u16(0) + u16(0) + u16(631) + name("printer.local"), IN | TOP)
u += rr(name("My Printer._http._tcp.local"), TXT, txt(b"txtvers=1"), IN | TOP, 4500)
u += rr(name("printer.local"), A, bytes([192, 168, 1, 20]), IN | TOP)
u += rr(name("printer.local"), AAAA, bytes.fromhex("fd000000000000000000000000000014"), IN | TOP)
u += rr(name("printer.local"), NSEC, name("printer.local") + nsec_bitmap([A, AAAA, 1234, 65280]), IN | TOP)
seeds["response-uncompressed-nsec-windows"] = u

# Goodbye (TTL 0), mixed-case owner and a duplicate that differs only in case (case must survive).
g = header(flags=0x8400, an=3)
g += rr(name("_HTTP._tcp.Local"), PTR, name("MiXeD._http._TCP.local"), ttl=0)
g += rr(name("_http._tcp.local"), PTR, name("mixed._http._tcp.local"), ttl=0)
g += rr(name("_http._tcp.local"), PTR, name("MIXED._http._tcp.local"), ttl=0)
seeds["response-goodbye-mixed-case"] = g

# EDNS(0) OPT in the additional section with the Owner option (sleep proxy) and an empty option;
# class carries the UDP size 1440, TTL the extended flags.
o = header(flags=0x8400, an=1, ar=1)
o += rr(name("host.local"), A, bytes([10, 0, 0, 1]), IN | TOP)
o += rr(b"\0", OPT, u16(4) + u16(14) + bytes(range(14)) + u16(65001) + u16(0), 1440, 0x00008000)
seeds["response-opt-owner"] = o

# Opaque types: HINFO, CNAME and NS whose RDATA holds a compression pointer (kept as raw bytes),
# a private type, and an empty TXT (RFC 6763 §6.1 allows it).
x = header(flags=0x8400, an=5)
x += rr(name("box.local"), HINFO, txt(b"ARM64", b"Linux"))  # "box" at 12, "local" at 16
x += rr(ptr(12), CNAME, labels("alias") + ptr(16))
x += rr(ptr(16), NS, ptr(12))
x += rr(ptr(12), 65534, bytes.fromhex("deadbeef00"), 0x00FF)
x += rr(ptr(12), TXT, b"")
seeds["response-unknown-types"] = x

# Opaque RDATA that holds a compression pointer (CNAME is not decoded, so its RDATA is kept as
# bytes): re-encoding compresses "other.local" and "target.local", the CNAME's pointer to offset 65
# is copied unchanged and then lands in the middle of a label. Round-trips by `==`, but the CNAME
# target changes meaning; kept as the reproducer for that observation.
sh = header(flags=0x8400, an=4)
sh += rr(name("host.local"), A, bytes([1, 1, 1, 1]))
sh += rr(name("other.local"), A, bytes([2, 2, 2, 2]))
target_at = len(sh)
sh += rr(name("target.local"), A, bytes([3, 3, 3, 3]))
sh += rr(name("www.local"), CNAME, ptr(target_at))
seeds["opaque-rdata-pointer-shift"] = sh

# Names at the limits: a 63-byte label and a 255-byte name; label bytes '.', '\\', UTF-8, control.
long_name = labels(*(["a" * 63] * 3 + ["b" * 61])) + b"\0"
assert len(long_name) == 255
odd = labels(b"dot.in\\label", "caf\u00e9 \u00dc", b"\x00\x01\x7f\xff", "local") + b"\0"
n = header(flags=0x8400, an=2)
n += rr(long_name, A, bytes([1, 2, 3, 4]))
n += rr(odd, PTR, ptr(12))
seeds["response-long-and-odd-names"] = n

# --- Compression edge cases --------------------------------------------------------------------
# Forward pointer: the question's name points at the answer's owner name after it.
f = header(qd=1, an=1)
f_q = question(ptr(12 + 6), A)  # question is 6 bytes, so the answer starts at 18
f += f_q + rr(name("fwd.local"), A, bytes([10, 1, 2, 3]))
seeds["forward-pointer"] = f

# Pointer chain: ptr -> ptr -> ptr -> labels.
c = header(flags=0x8400, an=4)
c += rr(name("chain.local"), A, bytes([1, 1, 1, 1]))  # "chain.local" at 12
x_at = len(c)
c += rr(labels("x") + ptr(12), A, bytes([2, 2, 2, 2]))  # "x" + pointer to 12
p_at = len(c)
c += rr(ptr(x_at), A, bytes([3, 3, 3, 3]))  # pointer to "x" + pointer
c += rr(ptr(p_at), A, bytes([4, 4, 4, 4]))  # pointer to a pointer to "x" + pointer
seeds["pointer-chain"] = c

# Pointer into the middle of a label: "xlocal" read from offset 13 gives the label "local"?
# No: the byte at 13 is 'l' (0x6c = label type 0x40, reserved). Point at 16 instead, where the
# bytes "\x05local" of a name stored as "\x03abc\x05local\x00" begin.
mid = header(flags=0x8400, an=2)
mid += rr(labels("abc", "local") + b"\0", A, bytes([5, 5, 5, 5]))  # "abc" at 12, "local" at 16
mid += rr(ptr(16), A, bytes([6, 6, 6, 6]))
seeds["pointer-into-suffix"] = mid
mid2 = header(flags=0x8400, an=2)
mid2 += rr(labels(b"\x00\x03xyz", "local") + b"\0", A, bytes([5, 5, 5, 5]))  # label data at 13
mid2 += rr(ptr(14), A, bytes([6, 6, 6, 6]))  # 14: "\x03xyz\x05local\x00" inside the first label
seeds["pointer-into-label-data"] = mid2

# Loops and bad targets: a self-pointer, a two-pointer loop, a pointer into the header, one past
# the end, and the reserved label types 0x40 and 0x80.
seeds["pointer-self-loop"] = header(qd=1) + question(ptr(12), A)
seeds["pointer-two-loop"] = header(qd=2) + ptr(18) + u16(A) + u16(IN) + ptr(12) + u16(A) + u16(IN)
seeds["pointer-into-header"] = header(qd=1) + question(ptr(4), A)
seeds["pointer-past-end"] = header(qd=1) + question(ptr(0x3FFF), A)
seeds["label-type-0x40"] = header(qd=1) + b"\x41\x00" + u16(A) + u16(IN)
seeds["name-too-long"] = header(qd=1) + labels(*(["c" * 63] * 4)) + b"\0" + u16(A) + u16(IN)

# Long pointer chains, stored in opaque RDATA: a label "x", then 131 pointers each to the one
# before. A question pointing at chain element k needs k+1 hops. The decoder's 128-hop limit
# rejects 129 hops alone; once an earlier name of 8+ hops has turned on the decoder's name cache,
# the same 129-hop question decodes, because the walk stops at a cached target (kept as the
# reproducer for that observation).
def chain_message(hops_per_question):
    qd = len(hops_per_question)
    rd_start = 12 + 6 * qd + 1 + 10  # after the questions, a root owner name and the fixed fields
    rdata, elements, previous = labels("x") + b"\0", [], rd_start
    for _ in range(131):
        elements.append(rd_start + len(rdata))
        rdata += ptr(previous)
        previous = elements[-1]
    qs = b"".join(question(ptr(elements[hops - 2]), A) for hops in hops_per_question)
    return header(qd=qd, an=1) + qs + rr(b"\0", 0xFFEE, rdata, ttl=0)


seeds["pointer-chain-129-hops"] = chain_message([129])
seeds["pointer-chain-129-hops-after-cache"] = chain_message([11, 101, 129])

# --- Malformed RDATA (each record skipped, the rest kept) --------------------------------------
bad = header(flags=0x8400, an=7)
bad += rr(name("bad.local"), A, bytes([1, 2, 3]))  # A of 3 bytes; "bad" at 12, "local" at 16
bad += rr(ptr(12), AAAA, bytes(15))
bad += rr(ptr(12), SRV, u16(0) + u16(0) + u16(80))  # 6 bytes, no target
bad += rr(ptr(12), TXT, b"\x05abc")  # string overruns
bad += rr(ptr(12), NSEC, ptr(12) + b"\x00\x00")  # bitmap of length 0
bad += rr(ptr(12), OPT, u16(1) + u16(9) + b"x")  # option overruns
bad += rr(ptr(12), PTR, ptr(12) + b"junk")  # name shorter than RDLENGTH
seeds["malformed-rdata-skipped"] = bad
seeds["nsec-windows-out-of-order"] = header(flags=0x8400, an=1) + rr(
    name("n.local"), NSEC, ptr(12) + b"\x01\x01\x40\x00\x01\x40")

# --- Header-level cases ------------------------------------------------------------------------
seeds["header-only"] = header(id=0xBEEF, flags=0x8400)
seeds["header-opcode-update"] = header(flags=0x2800, qd=1) + question(name("x.local"), A)
seeds["counts-exceed-data"] = header(qd=0xFFFF, an=0xFFFF, ns=0xFFFF, ar=0xFFFF) + question(name("a.local"), A)
seeds["all-flags-set"] = header(id=0xFFFF, flags=0x87FF, qd=1) + question(name("f.local"), A)

# --- Larger messages (several packets at 512 / 1500 bytes) --------------------------------------
big = header(flags=0x8400, an=40)
big += rr(name("_ciao._udp.local"), PTR, labels("instance-00") + ptr(12), ttl=4500)
for i in range(1, 40):
    big += rr(ptr(12), PTR, labels("instance-%02d" % i) + ptr(12), ttl=4500)
seeds["response-40-ptrs"] = big
# Close to the 9000-byte limit: uncompressed TXT-heavy records.
near = header(flags=0x8400, an=34)
for i in range(34):
    near += rr(name("t%02d.near.local" % i), TXT, txt(b"k" * 200, b"v" * 30))
assert len(near) <= 9000, len(near)
seeds["response-near-9000"] = near

# --- Truncations of the full response: inside the header, a name, fixed fields and RDATA --------
full = seeds["response-dnssd-compressed"]
for cut in (11, 20, 44, 62, 75, len(full) - 1):
    seeds["truncated-%03d" % cut] = full[:cut]

# --- What Fuzz/DriverFuzzer.swift publishes and asks for --------------------------------------
# Its driver publishes "Fuzz._http._tcp.local." (subtype _printer) on fuzz.local at 198.18.0.1 and
# resolves "Peer._http._tcp.local."; these reach its answering, conflict and resolution paths.
own = "Fuzz._http._tcp.local"
d = header(qd=3)
d += question(name("_http._tcp.local"), PTR, IN | TOP)
d += question(name(own), SRV, IN | TOP)
d += question(name("fuzz.local"), A, IN | TOP)
seeds["driver-query-own-qu"] = d
seeds["driver-query-own-known-answer"] = (
    header(qd=1, an=1) + question(name("_http._tcp.local"), PTR) + rr(ptr(12), PTR, name(own), ttl=4500))
seeds["driver-query-reverse-and-subtype"] = (
    header(qd=2) + question(name("1.0.18.198.in-addr.arpa"), PTR)
    + question(name("_printer._sub._http._tcp.local"), PTR))
seeds["driver-probe-tie-break"] = (
    header(qd=1, ns=1) + question(name(own), ANY, IN | TOP)
    + rr(ptr(12), SRV, u16(0) + u16(0) + u16(9999) + name("other.local")))
seeds["driver-response-conflict"] = (
    header(flags=0x8400, an=2) + rr(name(own), SRV, u16(0) + u16(0) + u16(1) + name("other.local"), IN | TOP)
    + rr(name("fuzz.local"), A, bytes([198, 18, 0, 9]), IN | TOP))
peer = header(flags=0x8400, an=1, ar=6)
peer += rr(name("_http._tcp.local"), PTR, labels("Peer") + ptr(12), ttl=4500)  # "Peer" at 40
peer += rr(ptr(40), SRV, u16(0) + u16(0) + u16(80) + name("peer.local"), IN | TOP)
peer += rr(ptr(40), TXT, txt(b"v=1", b"path=/"), IN | TOP, 4500)
peer += rr(name("peer.local"), A, bytes([198, 18, 0, 7]), IN | TOP)
peer += rr(name("peer.local"), AAAA, bytes.fromhex("fd000198001800000000000000000007"), IN | TOP)
peer += rr(name("_services._dns-sd._udp.local"), PTR, name("_ipp._tcp.local"), ttl=4500)
peer += rr(name("Printer._ipp._tcp.local"), SRV, u16(0) + u16(0) + u16(631) + name("peer.local"), IN | TOP)
seeds["driver-response-peer"] = peer

seed_files.write(OUT, seeds)

captures = os.path.join(HERE, "..", "Tests", "CiaoWireTests", "Captures")
copied = 0
if os.path.isdir(captures):
    for entry in sorted(os.listdir(captures)):
        if entry.endswith(".bin"):
            shutil.copyfile(os.path.join(captures, entry), os.path.join(OUT, "capture-" + entry))
            copied += 1
print("wrote %d synthetic seeds and %d captures to %s" % (len(seeds), copied, OUT))
