"""Query load for the responder-CPU benchmark (stdlib only; run inside a lab host, as root).

    query_load.py --src ADDR --type _x._tcp --prefix "Bench" --count 1000 --queries 5000 --rate 500

Sends `--queries` standard mDNS queries (QM, source port 5353, to 224.0.0.251) for the SRV
records of the instances "<prefix> 000" .. "<prefix> <count-1>", cycling through them in order,
at `--rate` queries per second, so each name is asked again only every count/rate seconds
(keep that above 1 s: responders multicast one record at most once per second). It listens on
5353 for the answers and counts a query as answered when a response carrying that instance's
SRV record arrives before the same name is asked again.

Prints one JSON line at the end:
  {"event":"done","sent":N,"answered":M,"start":t0,"end":t1,"latency_ms":{"min","median","max"},
   "responses":packets received with at least one matching SRV}
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import statistics
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Interop"))
from dnsmsg import TYPES, build_query, parse  # noqa: E402

GROUP = "224.0.0.251"


def main() -> None:
    a = argparse.ArgumentParser()
    a.add_argument("--src", required=True)
    a.add_argument("--type", required=True)
    a.add_argument("--prefix", default="Bench")
    a.add_argument("--count", type=int, default=1000)
    a.add_argument("--queries", type=int, default=5000)
    a.add_argument("--rate", type=float, default=500)
    a.add_argument("--linger", type=float, default=1.0, help="seconds to keep listening after the last query")
    args = a.parse_args()

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("", 5353))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, socket.inet_aton(GROUP) + socket.inet_aton(args.src))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.src))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setblocking(False)

    service, proto = args.type.strip(".").split(".")[:2]
    names = [[f"{args.prefix} {i:03d}".encode(), service.encode(), proto.encode(), b"local"]
             for i in range(args.count)]
    queries = [build_query(0, [(n, TYPES["SRV"])]) for n in names]
    key = {bytes(b".".join(l.lower() for l in n)): i for i, n in enumerate(names)}
    pending: dict[int, float] = {}
    latencies: list[float] = []
    answered = sent = responses = 0

    def receive(until: float) -> None:
        nonlocal answered, responses
        while True:
            left = until - time.monotonic()
            if left <= 0 or not select.select([s], [], [], left)[0]:
                return
            while True:
                try:
                    buf, _ = s.recvfrom(65535)
                except BlockingIOError:
                    break
                now = time.monotonic()
                try:
                    msg = parse(buf)
                except (ValueError, IndexError, struct.error):
                    continue
                if not msg["flags"] & 0x8000:
                    continue
                hit = False
                for rec in msg.get("answers", []) + msg.get("additional", []):
                    if rec["type"] != TYPES["SRV"]:
                        continue
                    i = key.get(b".".join(l.lower() for l in rec["name"]))
                    if i is not None and i in pending:
                        latencies.append(now - pending.pop(i))
                        answered += 1
                        hit = True
                responses += hit

    start = time.monotonic()
    interval = 1.0 / args.rate
    for n in range(args.queries):
        due = start + n * interval
        receive(due)
        i = n % args.count
        pending[i] = time.monotonic()          # a still-pending older query of this name is unanswered
        s.sendto(queries[i], (GROUP, 5353))
        sent += 1
    end = time.monotonic()
    receive(end + args.linger)
    lat = sorted(latencies)
    print(json.dumps({"t": time.monotonic(), "event": "done", "sent": sent, "answered": answered,
                      "responses": responses, "start": start, "end": end,
                      "latency_ms": {"min": lat[0] * 1e3, "median": statistics.median(lat) * 1e3,
                                     "max": lat[-1] * 1e3} if lat else None}), flush=True)


if __name__ == "__main__":
    main()
