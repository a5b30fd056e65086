#!/usr/bin/env python3
"""A DNS UPDATE server that grants Update Leases (RFC 9664), which BIND 9.18 does not: enough of
one zone for a registrant to find it (SOA), every UPDATE answered NOERROR with an Update Lease
option and a TSIG signature (RFC 8945, hmac-sha256) over the reply, each printed as a JSON line.
It keeps no records: it is there to see when a registrant refreshes. Run inside a lab host only.

    leaseserver.py --address ADDR --zone ZONE --key-name NAME --secret BASE64 --lease SECONDS
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dnsmsg  # noqa: E402

OPCODE_UPDATE = 5
TYPE_SOA, TYPE_OPT, TYPE_TSIG = dnsmsg.TYPES["SOA"], dnsmsg.TYPES["OPT"], dnsmsg.TYPES["TSIG"]
CLASS_ANY = 255
OPTION_UPDATE_LEASE = 2
HMAC_SHA256 = [b"hmac-sha256"]


def wire(name: list[bytes]) -> bytes:
    """A name in canonical wire form: uncompressed, lowercase (RFC 8945 §4.3.3)."""
    return dnsmsg.encode_name([l.lower() for l in name])


def tsig_mac(rdata: bytes) -> bytes:
    """The MAC of a TSIG record's RDATA."""
    _, off = dnsmsg.read_name(rdata, 0)
    size = struct.unpack("!H", rdata[off + 8:off + 10])[0]
    return rdata[off + 10:off + 10 + size]


def signed(reply: bytes, qid: int, request_mac: bytes, key_name: list[bytes], secret: bytes) -> bytes:
    """`reply` with a TSIG record appended, its MAC over the request's MAC, the reply and the
    TSIG variables (RFC 8945 §4.3)."""
    now = int(time.time())
    time_fudge = struct.pack("!HIH", now >> 32, now & 0xFFFFFFFF, 300)
    variables = wire(key_name) + struct.pack("!HI", CLASS_ANY, 0) + wire(HMAC_SHA256) + time_fudge + struct.pack("!HH", 0, 0)
    mac = hmac.new(secret, struct.pack("!H", len(request_mac)) + request_mac + reply + variables, hashlib.sha256).digest()
    rdata = wire(HMAC_SHA256) + time_fudge + struct.pack("!H", len(mac)) + mac + struct.pack("!HHH", qid, 0, 0)
    record = dnsmsg.rr(wire(key_name), TYPE_TSIG, 0, rdata, CLASS_ANY)
    header = bytearray(reply[:12])
    header[10:12] = struct.pack("!H", struct.unpack("!H", reply[10:12])[0] + 1)
    return bytes(header) + reply[12:] + record


def answer_query(request: bytes, msg: dict, zone: list[bytes]) -> bytes:
    """The zone's SOA at its apex; NOERROR without records for any other name."""
    name, qtype, question = dnsmsg.raw_question(request)
    answers = b""
    if qtype == TYPE_SOA and dnsmsg.same_name(name, zone):
        soa = wire([b"ns"] + zone) + wire([b"admin"] + zone) + struct.pack("!5I", 1, 3600, 600, 86400, 10)
        answers = dnsmsg.rr(wire(zone), TYPE_SOA, 10, soa)
    header = struct.pack("!6H", msg["id"], 0x8400, 1, 1 if answers else 0, 0, 0)
    return header + question + answers


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--address", required=True)
    a.add_argument("--zone", required=True)
    a.add_argument("--key-name", required=True)
    a.add_argument("--secret", required=True, help="the key's secret, base64")
    a.add_argument("--lease", type=int, required=True, help="the lease granted, seconds")
    args = a.parse_args()
    zone, key_name, secret = dnsmsg.labels(args.zone), dnsmsg.labels(args.key_name), base64.b64decode(args.secret)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((args.address, 53))
    print(json.dumps({"event": "listening"}), flush=True)
    while True:
        request, source = sock.recvfrom(65535)
        try:
            msg = dnsmsg.parse(request)
        except (ValueError, IndexError, struct.error):
            continue
        if (msg["flags"] >> 11) & 0xF != OPCODE_UPDATE:
            if msg["questions"]:
                sock.sendto(answer_query(request, msg, zone), source)
            continue
        tsig = [r for r in msg["additional"] if r["type"] == TYPE_TSIG]
        asked = None
        for r in msg["additional"]:
            if r["type"] == TYPE_OPT:
                rdata = r["rdata"]
                while len(rdata) >= 4:
                    code, size = struct.unpack("!HH", rdata[:4])
                    if code == OPTION_UPDATE_LEASE and size >= 4:
                        asked = struct.unpack("!I", rdata[4:8])[0]
                    rdata = rdata[4 + size:]
        # the update section is the third (authority) one; class ANY or NONE deletes
        deletes = any(r["class"] in (CLASS_ANY, 254) for r in msg["authority"])
        print(json.dumps({"event": "update", "t": time.monotonic(), "leaseAsked": asked, "deletes": deletes,
                          "signed": bool(tsig)}), flush=True)
        option = struct.pack("!HHI", OPTION_UPDATE_LEASE, 4, args.lease)
        opt = dnsmsg.rr(b"\x00", TYPE_OPT, 0, option, 1232)     # OPT's class: the UDP payload size
        _, _, question = dnsmsg.raw_question(request)
        reply = struct.pack("!6H", msg["id"], 0x8000 | OPCODE_UPDATE << 11, 1, 0, 0, 1) + question + opt
        if tsig:
            reply = signed(reply, msg["id"], tsig_mac(tsig[-1]["rdata"]), key_name, secret)
        sock.sendto(reply, source)


if __name__ == "__main__":
    sys.exit(main())
