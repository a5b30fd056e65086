#!/usr/bin/env python3
"""make-reply-seeds.py — write ReplyFuzzer's seed corpus to Fuzz/ReplySeeds/.

Usage: python3 Fuzz/make-reply-seeds.py [OUTDIR]      (default: Fuzz/ReplySeeds next to this script)

Only needed to regenerate the seeds; Scripts/fuzz.sh uses the committed files and needs no Python.

Each seed is ReplyFuzzer's control byte (see the header of Fuzz/ReplyFuzzer.swift: how the reply is
fitted to the query, the query type, an option and the delivery) followed by what a unicast DNS
server sends back: answers to `printer.lab.example.` of each type ReplyFuzzer asks, CNAME chains and
loops, NXDOMAIN and NODATA with an SOA, TC, SERVFAIL and REFUSED, huge TTLs, records for other names
that must not be cached, replies that walk the SOA of `lab.example.` to its update server, and
UPDATE replies (NOERROR with a lease, YXDOMAIN, unsigned refusals, a BADTIME error). BIND's TSIG
replies from Tests/CiaoWireTests/Captures/TSIG are copied in as they are (ReplyFuzzer verifies with
their key, request MAC and time, so signed-response.bin verifies), and avahi's legacy unicast reply
as a large compressed one.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed_files  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "ReplySeeds")

A, NS, CNAME, SOA, PTR, TXT, AAAA, SRV, OPT, TSIG, ANY = 1, 2, 5, 6, 12, 16, 28, 33, 41, 250, 255
IN, CLASS_ANY = 1, 255
# The control byte's query types, in order (bits 2-4).
TYPES = [A, AAAA, CNAME, SOA, SRV, PTR, TXT, ANY]
ADDRESSED, REWRITTEN, OPTION = 0x01, 0x02, 0x20
FROM_ANOTHER_SOURCE, ON_A_GIVEN_UP_TRY = 0x80, 0xC0
UPDATE = 5  # OPCODE


def u16(v):
    return struct.pack(">H", v)


def u32(v):
    return struct.pack(">I", v)


def name(text):
    out = b""
    for part in [p for p in text.split(".") if p]:
        out += bytes([len(part)]) + part.encode()
    return out + b"\0"


def ptr(offset):
    return u16(0xC000 | offset)


def first_query_id():
    """The ID ReplyFuzzer's seeded generator (SplitMix64 from 0xC1A0) gives its first query."""
    mask = (1 << 64) - 1
    z = (0xC1A0 + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return (z ^ (z >> 31)) & 0xFFFF


def control(qtype=A, fit=ADDRESSED, extra=0):
    return bytes([fit | TYPES.index(qtype) << 2 | extra])


def reply(qtype, rcode=0, flags=0x8180, an=(), ns=(), ar=(), qname="printer.lab.example", id=0, opcode=0):
    """A response: header, the question, then the sections."""
    out = u16(id) + u16(flags | opcode << 11 | rcode) + u16(1) + u16(len(an)) + u16(len(ns)) + u16(len(ar))
    out += name(qname) + u16(qtype) + u16(IN)
    return out + b"".join(an) + b"".join(ns) + b"".join(ar)


def rr(owner, rtype, rdata, ttl=300, rclass=IN):
    owner = name(owner) if isinstance(owner, str) else owner
    return owner + u16(rtype) + u16(rclass) + u32(ttl) + u16(len(rdata)) + rdata


def soa(zone, ttl=3600, minimum=30):
    rdata = name("ns." + zone) + name("hostmaster." + zone) + u32(1) + u32(3600) + u32(900) + u32(604800)
    return rr(zone, SOA, rdata + u32(minimum), ttl)


def srv(owner, port, target, ttl=300):
    return rr(owner, SRV, u16(0) + u16(0) + u16(port) + name(target), ttl)


def opt(options=b""):
    return rr(b"\0", OPT, options, ttl=0, rclass=1232)


def update_lease(seconds):
    return u16(2) + u16(4) + u32(seconds)


HOST = "printer.lab.example"
QUESTION_END = 12 + len(name(HOST)) + 4  # where the first answer starts; the question's name is at 12
ADDRESS = bytes([198, 18, 0, 7])
ADDRESS6 = bytes.fromhex("fd000198001800000000000000000007")

seeds = {}

# --- Answers to the client's query -----------------------------------------------------------
seeds["a-answer"] = control(A) + reply(A, an=[rr(ptr(12), A, ADDRESS)])
seeds["a-answer-as-sent"] = control(A, fit=0) + reply(A, id=first_query_id(), an=[rr(ptr(12), A, ADDRESS)])
seeds["a-answer-over-tcp"] = control(A, extra=OPTION) + reply(A, an=[rr(ptr(12), A, ADDRESS)])
seeds["a-answer-another-source"] = control(A, extra=FROM_ANOTHER_SOURCE) + reply(A, an=[rr(ptr(12), A, ADDRESS)])
seeds["a-answer-given-up-try"] = control(A, extra=ON_A_GIVEN_UP_TRY) + reply(A, an=[rr(ptr(12), A, ADDRESS)])
seeds["aaaa-answer-and-others"] = control(AAAA) + reply(
    AAAA, an=[rr(ptr(12), AAAA, ADDRESS6), rr("victim.example", AAAA, ADDRESS6)],
    ns=[rr("lab.example", NS, name("ns.lab.example"), 86400)],
    ar=[rr("ns.lab.example", A, ADDRESS, 86400), rr(ptr(12), A, ADDRESS), opt()])
seeds["huge-and-duplicate-ttls"] = control(A) + reply(
    A, an=[rr(ptr(12), A, ADDRESS, 0xFFFFFFFF), rr(ptr(12), A, ADDRESS, 60), rr(ptr(12), A, bytes([198, 18, 0, 8]), 0)])
seeds["srv-answer"] = control(SRV) + reply(SRV, an=[srv(ptr(12), 631, "printer.lab.example")])
seeds["ptr-answer"] = control(PTR) + reply(PTR, an=[rr(ptr(12), PTR, name("Printer._ipp._tcp.lab.example"))])
seeds["txt-answer"] = control(TXT) + reply(TXT, an=[rr(ptr(12), TXT, b"\x06rp=ipp\x09txtvers=1")])
seeds["any-answer"] = control(ANY) + reply(ANY, an=[rr(ptr(12), A, ADDRESS), rr(ptr(12), TXT, b"\x00")])

# CNAME chains: followed inside the reply, two links; a loop; one past the limit of 8 links.
chain = [rr(ptr(12), CNAME, name("alias1.lab.example"))]
chain += [rr("alias1.lab.example", CNAME, name("alias2.lab.example")), rr("alias2.lab.example", A, ADDRESS, 60)]
seeds["cname-chain"] = control(A) + reply(A, an=chain)
seeds["cname-question"] = control(CNAME) + reply(CNAME, an=chain)
seeds["cname-loop"] = control(A) + reply(
    A, an=[rr(ptr(12), CNAME, name("alias.lab.example")), rr("alias.lab.example", CNAME, name(HOST))])
long_chain = [rr(ptr(12), CNAME, name("alias1.lab.example"))]
long_chain += [rr("alias%d.lab.example" % i, CNAME, name("alias%d.lab.example" % (i + 1))) for i in range(1, 9)]
seeds["cname-chain-9-links"] = control(A) + reply(A, an=long_chain + [rr("alias9.lab.example", A, ADDRESS)])
seeds["cname-nxdomain"] = control(A) + reply(
    A, rcode=3, an=[rr(ptr(12), CNAME, name("gone.lab.example"))], ns=[soa("lab.example")])

# Negative answers and failures.
seeds["nxdomain-soa"] = control(A) + reply(A, rcode=3, ns=[soa("lab.example", minimum=30)])
seeds["nodata-soa-huge-ttl"] = control(AAAA) + reply(AAAA, ns=[soa("lab.example", 0xFFFFFFFF, 0xFFFFFFFF)])
seeds["nodata-soa-elsewhere"] = control(A) + reply(A, ns=[soa("other.example")])
seeds["truncated"] = control(A) + reply(A, flags=0x8380)
seeds["truncated-over-tcp"] = control(A, extra=OPTION) + reply(A, flags=0x8380)
seeds["servfail"] = control(A) + reply(A, rcode=2)
seeds["refused"] = control(A) + reply(A, rcode=5, flags=0x8100)

# --- The SOA walk of lab.example. to its update server (answers fitted to every question) ---
walk = [soa("lab.example"), srv("_dns-update._udp.lab.example", 5353, "updates.lab.example")]
walk += [rr("updates.lab.example", A, bytes([198, 18, 0, 1])), rr("ns.lab.example", AAAA, ADDRESS6)]
seeds["soa-walk-update-service"] = control(SOA, fit=ADDRESSED | REWRITTEN) + reply(SOA, an=walk)
seeds["soa-walk-primary"] = control(SOA, fit=ADDRESSED | REWRITTEN) + reply(
    SOA, an=[soa("lab.example"), rr("ns.lab.example", AAAA, ADDRESS6)])
seeds["soa-walk-server-given"] = control(SOA, fit=ADDRESSED | REWRITTEN, extra=OPTION) + reply(
    SOA, an=[soa("lab.example")])
seeds["soa-through-cname"] = control(SOA, fit=ADDRESSED | REWRITTEN) + reply(
    SOA, an=[rr(ptr(12), CNAME, name("lab.example")), soa("lab.example")])

# --- UPDATE replies: the zone as question, QR and OPCODE 5 --------------------------------------
def update_reply(rcode=0, ar=()):
    return reply(SOA, rcode=rcode, flags=0x8000, ar=ar, qname="lab.example", opcode=UPDATE)


signed = ADDRESSED | REWRITTEN  # the ID patched, then signed by ReplyFuzzer with the UPDATE's MAC
seeds["update-noerror-lease"] = control(SOA, fit=signed) + update_reply(ar=[opt(update_lease(7200))])
seeds["update-noerror-no-lease"] = control(SOA, fit=signed) + update_reply()
seeds["update-yxdomain"] = control(SOA, fit=signed) + update_reply(rcode=6)
seeds["update-yxdomain-renaming"] = control(SOA, fit=signed, extra=OPTION) + update_reply(rcode=6)
seeds["update-refused-unsigned"] = control(SOA) + update_reply(rcode=5)
seeds["update-notauth-unsigned"] = control(SOA) + update_reply(rcode=9)
# An unsigned BADTIME error (RFC 8945 §5.2.3): no MAC, error 18, the server's time as other data.
badtime = name("ciao-test") + u16(TSIG) + u16(CLASS_ANY) + u32(0)
rdata = name("hmac-sha256") + u16(0) + u32(0x6B0FD4B5 + 1000) + u16(300) + u16(0) + u16(0) + u16(18)
rdata += u16(6) + u16(0) + u32(0x6B0FD4B5 + 1000)
seeds["update-badtime-unsigned"] = control(SOA) + update_reply(rcode=9, ar=[badtime + u16(len(rdata)) + rdata])

seed_files.write(OUT, seeds)

# --- Captures: BIND's TSIG replies (as sent, and with the ID patched), avahi's legacy reply ----
captures = os.path.join(HERE, "..", "Tests", "CiaoWireTests", "Captures")
copied = 0
for entry, fit, qtype in [
    ("TSIG/signed-response.bin", 0, SOA),
    ("TSIG/signed-response.bin", ADDRESSED, SOA),
    ("TSIG/wrong-secret-response.bin", ADDRESSED, SOA),
    ("TSIG/unknown-key-response.bin", ADDRESSED, SOA),
    ("avahi-legacy-reply-1.bin", ADDRESSED | REWRITTEN, PTR),
]:
    path = os.path.join(captures, entry)
    if not os.path.isfile(path):
        continue
    with open(path, "rb") as fh:
        data = fh.read()
    target = "capture-%s-%s.bin" % (os.path.basename(entry)[:-4], "as-sent" if fit == 0 else "fitted")
    with open(os.path.join(OUT, target), "wb") as fh:
        fh.write(control(qtype, fit=fit) + data)
    copied += 1
print("wrote %d synthetic seeds and %d captures to %s" % (len(seeds), copied, OUT))
