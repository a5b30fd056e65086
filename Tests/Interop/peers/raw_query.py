"""Send one DNS query over UDP and print every reply received on the same socket (stdlib only).

    raw_query.py --src ADDR --sport PORT --dst ADDR --id N --qtype SRV --name LABEL... [--wait S]
                 [--interface NAME]

--name takes the question name as separate labels (so an instance name may hold spaces or
dots). IPv4 or IPv6 as --src is. A multicast destination is sent out of the interface that owns
--src (IPv4) or --interface (IPv6, default civ0). Prints one JSON
line per reply: {"event":"reply","from":addr,"port":p,"message":hex} and finally
{"event":"done","sent":t}, with t = time.monotonic().
"""

import argparse
import ipaddress
import json
import os
import select
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dnsmsg import TYPES, build_query  # noqa: E402


def main() -> None:
    a = argparse.ArgumentParser()
    a.add_argument("--src", required=True)
    a.add_argument("--sport", type=int, default=0)
    a.add_argument("--dst", required=True)
    a.add_argument("--id", type=int, default=0)
    a.add_argument("--qtype", default="PTR", choices=sorted(TYPES))
    a.add_argument("--name", nargs="+", required=True)
    a.add_argument("--wait", type=float, default=2.0)
    a.add_argument("--interface", default="civ0")
    args = a.parse_args()
    v6 = ipaddress.ip_address(args.src).version == 6
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.bind((args.src, args.sport))
    if ipaddress.ip_address(args.dst).is_multicast and v6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_IF, socket.if_nametoindex(args.interface))
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_MULTICAST_HOPS, 255)
    elif ipaddress.ip_address(args.dst).is_multicast:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(args.src))
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    query = build_query(args.id, [([l.encode() for l in args.name], TYPES[args.qtype])])
    sent = time.monotonic()
    s.sendto(query, (args.dst, 5353))
    deadline = sent + args.wait
    while (left := deadline - time.monotonic()) > 0:
        if not select.select([s], [], [], left)[0]:
            break
        buf, (addr, port) = s.recvfrom(65535)
        print(json.dumps({"t": time.monotonic(), "event": "reply", "from": addr, "port": port,
                          "message": buf.hex()}), flush=True)
    print(json.dumps({"t": time.monotonic(), "event": "done", "sent": sent}), flush=True)


if __name__ == "__main__":
    main()
