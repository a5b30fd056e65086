#!/usr/bin/env python3
"""A hostile authoritative server for lab.example. (stdlib only): UDP and TCP on port 53, one
misbehaviour per run. Runs inside a lab namespace only (widearea.py's `hostile` scenario).

    fakedns.py --mode MODE --address ADDR [--other ADDR]

The honest data: _http._tcp.lab.example. PTR Good._http._tcp.lab.example. (SRV 0 0 80
good.lab.example., TXT "k=v", A 198.18.0.1) and _services._dns-sd._udp PTR _http._tcp. Every
query received is printed as one JSON line {"t", "proto", "qname", "qtype"} on stdout, so the
scenario can count queries. A forged record always names "Forged" or "Evil": it must never
reach ciao's output.

Modes:
  ok            honest answers
  wrong-id      a forged answer with another ID first, the honest one 0.2 s later
  wrong-source  a forged answer from --other (the namespace's second address) first, then honest
  tc-garbage    UDP: TC and nothing else; TCP: a length prefix and random bytes
  tc-close      UDP: TC; TCP: the connection closed at once
  tc-oversized  UDP: TC; TCP: a 65535-byte reply of records, most of them nonsense
  udp-oversized UDP: a 60000-byte reply (far above any payload size the client offered)
  pointer-loop  every answer's owner name a compression pointer to itself
  off-domain    the PTR set also holds Evil._http._tcp.evil.example.
  cname-chain   the PTR name a CNAME chain of 20 names looping back to its start
  cname-out     the PTR name a CNAME to _http._tcp.evil.example., whose PTR (Forged) follows
  huge-ttl      honest answers with TTL 2^31-1
  servfail      SERVFAIL to every query
  silent        never answers
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dnsmsg import TYPES, build_response, encode_name, labels, raw_question, rr, same_name  # noqa: E402

MODES = ["ok", "wrong-id", "wrong-source", "tc-garbage", "tc-close", "tc-oversized", "udp-oversized",
         "pointer-loop", "off-domain", "cname-chain", "cname-out", "huge-ttl", "servfail", "silent"]
AA, TC, SERVFAIL = 0x0400, 0x0200, 2
TYPE = "_http._tcp.lab.example."
GOOD = "Good._http._tcp.lab.example."


def n(text: str) -> bytes:
    return encode_name(labels(text))


def srv(target: str, port: int = 80) -> bytes:
    return struct.pack("!HHH", 0, 0, port) + n(target)


def honest(qname: list[bytes], qtype: int, ttl: int) -> list[bytes]:
    """The honest answers to (qname, qtype)."""
    q = qname
    if same_name(q, labels(TYPE)) and qtype == TYPES["PTR"]:
        return [rr(n(TYPE), TYPES["PTR"], ttl, n(GOOD))]
    if same_name(q, labels("_services._dns-sd._udp.lab.example.")) and qtype == TYPES["PTR"]:
        return [rr(encode_name(q), TYPES["PTR"], ttl, n(TYPE))]
    if same_name(q, labels(GOOD)) and qtype == TYPES["SRV"]:
        return [rr(n(GOOD), TYPES["SRV"], ttl, srv("good.lab.example."))]
    if same_name(q, labels(GOOD)) and qtype == TYPES["TXT"]:
        return [rr(n(GOOD), TYPES["TXT"], ttl, b"\x03k=v")]
    if same_name(q, labels("good.lab.example.")) and qtype == TYPES["A"]:
        return [rr(n("good.lab.example."), TYPES["A"], ttl, socket.inet_aton("198.18.0.1"))]
    if q and q[0].lower() in (b"forged", b"evil") and qtype == TYPES["SRV"]:
        return [rr(encode_name(q), TYPES["SRV"], ttl, srv("good.lab.example."))]
    if same_name(q, labels("_http._tcp.evil.example.")) and qtype == TYPES["PTR"]:
        return [rr(encode_name(q), TYPES["PTR"], ttl, n("Forged._http._tcp.evil.example."))]
    return []


class Fake:
    def __init__(self, mode: str, address: str, other: str | None):
        self.mode, self.address, self.other = mode, address, other
        self.lock = threading.Lock()

    def log(self, proto: str, qname: list[bytes], qtype: int) -> None:
        with self.lock:
            print(json.dumps({"t": time.monotonic(), "proto": proto, "qname": b".".join(qname).decode("utf-8", "replace"),
                              "qtype": qtype}), flush=True)

    def answer(self, query: bytes, proto: str) -> list[bytes]:
        """The replies to send for one query, in order (b"" means: pause 0.2 s)."""
        qid, flags = struct.unpack("!HH", query[:4])
        qname, qtype, question = raw_question(query)
        self.log(proto, qname, qtype)
        rd = flags & 0x0100
        mode = self.mode
        reply = lambda answers, extra=0, rcode=0: build_response(qid, AA | rd | extra, question, answers, rcode)
        if mode == "silent":
            return []
        if mode == "servfail":
            return [reply([], rcode=SERVFAIL)]
        ttl = 0x7FFFFFFF if mode == "huge-ttl" else 30
        answers = honest(qname, qtype, ttl)
        is_ptr = same_name(qname, labels(TYPE)) and qtype == TYPES["PTR"]
        if mode in ("wrong-id", "wrong-source") and is_ptr:
            forged = [rr(n(TYPE), TYPES["PTR"], ttl, n("Forged._http._tcp.lab.example."))]
            fid = qid ^ 0x5A5A if mode == "wrong-id" else qid
            forged_reply = build_response(fid, AA | rd, question, forged)
            return [("forged", forged_reply), b"", reply(answers)]
        if mode.startswith("tc-") and proto == "udp":
            return [reply([], extra=TC)]
        if mode == "tc-oversized":
            # question, then as many records as fit: an A of the question's name by pointer, a
            # record with a type nobody knows, alternately; the count says 65535
            body = reply([])[:12] + question
            filler = [rr(b"\xc0\x0c", TYPES["A"], 30, b"\x01\x02\x03\x04"), rr(b"\xc0\x0c", 65280, 30, b"\xff" * 40)]
            i = 0
            while len(body) < 65535 - 60:
                body += filler[i % 2]
                i += 1
            body = body[:6] + struct.pack("!H", 65535) + body[8:]
            return [body + b"\x00" * (65535 - len(body))]
        if mode == "udp-oversized":
            body = reply(answers + [rr(n(TYPE), TYPES["TXT"], 30, b"\xff" + b"x" * 255)] * 230)
            return [body[:60000]]
        if mode == "pointer-loop" and answers:
            base = len(reply([]))          # offset where the first answer starts
            looped = [rr(struct.pack("!H", 0xC000 | base), TYPES["PTR"], ttl, n(GOOD))]
            return [reply(looped)]
        if mode == "off-domain" and is_ptr:
            answers.append(rr(n(TYPE), TYPES["PTR"], ttl, n("Evil._http._tcp.evil.example.")))
        if mode == "cname-chain" and is_ptr:
            chain = [TYPE] + [f"c{i}.lab.example." for i in range(1, 20)] + [TYPE]
            answers = [rr(n(a), TYPES["CNAME"], ttl, n(b)) for a, b in zip(chain, chain[1:])]
        if mode == "cname-out" and is_ptr:
            answers = [rr(n(TYPE), TYPES["CNAME"], ttl, n("_http._tcp.evil.example.")),
                       rr(n("_http._tcp.evil.example."), TYPES["PTR"], ttl, n("Forged._http._tcp.evil.example."))]
        return [reply(answers)]

    def serve_udp(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((self.address, 53))
        other = None
        if self.other:
            other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            other.bind((self.other, 53))
        while True:
            query, peer = sock.recvfrom(65535)
            try:
                replies = self.answer(query, "udp")
            except (ValueError, IndexError, struct.error):
                continue
            for r in replies:
                if r == b"":
                    time.sleep(0.2)
                elif isinstance(r, tuple):
                    (other if self.mode == "wrong-source" and other else sock).sendto(r[1], peer)
                else:
                    sock.sendto(r, peer)

    def serve_tcp(self) -> None:
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind((self.address, 53))
        lsock.listen(16)
        while True:
            conn, _ = lsock.accept()
            threading.Thread(target=self.tcp_client, args=(conn,), daemon=True).start()

    def tcp_client(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(10)
            try:
                while True:
                    head = conn.recv(2, socket.MSG_WAITALL)
                    if len(head) < 2:
                        return
                    query = conn.recv(struct.unpack("!H", head)[0], socket.MSG_WAITALL)
                    if self.mode in ("tc-close", "tc-garbage"):
                        qname, qtype, _ = raw_question(query)
                        self.log("tcp", qname, qtype)
                    if self.mode == "tc-close":
                        return
                    if self.mode == "tc-garbage":
                        conn.sendall(struct.pack("!H", 300) + os.urandom(300))
                        continue
                    for r in self.answer(query, "tcp"):
                        if isinstance(r, tuple):
                            continue            # a forged reply needs UDP
                        if r:
                            conn.sendall(struct.pack("!H", len(r)) + r)
            except (OSError, ValueError, IndexError, struct.error):
                return


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--mode", choices=MODES, required=True)
    a.add_argument("--address", required=True)
    a.add_argument("--other", help="the second address wrong-source sends from")
    args = a.parse_args()
    fake = Fake(args.mode, args.address, args.other)
    threading.Thread(target=fake.serve_tcp, daemon=True).start()
    print(json.dumps({"event": "ready", "mode": args.mode}), flush=True)
    fake.serve_udp()
    return 0


if __name__ == "__main__":
    sys.exit(main())
