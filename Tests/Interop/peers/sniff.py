"""Print every mDNS datagram this host receives on one interface, IPv4 and IPv6 (stdlib only).

    sniff.py --interface NAME

Joins 224.0.0.251 and ff02::fb on the interface, bound to port 5353 with SO_REUSEADDR beside any
responder, and prints one JSON line per datagram: {"event":"packet","from":addr,"message":hex,"t":monotonic
time when read, "kt": the kernel's receive time (SO_TIMESTAMPNS, CLOCK_REALTIME seconds), exact to
the microsecond where "t" carries the reader's delay};
{"event":"ready"} once both sockets listen.
"""

import argparse
import json
import select
import socket
import struct
import sys
import time

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)     # Linux; also the cmsg type


def main() -> None:
    a = argparse.ArgumentParser()
    a.add_argument("--interface", required=True)
    args = a.parse_args()
    index = socket.if_nametoindex(args.interface)
    v4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    v4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    v4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    v4.bind(("224.0.0.251", 5353))
    v4.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                  struct.pack("4s4si", socket.inet_aton("224.0.0.251"), socket.inet_aton("0.0.0.0"), index))
    v6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    v6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    v6.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    v6.bind(("ff02::fb", 5353, 0, index))
    v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_JOIN_GROUP,
                  socket.inet_pton(socket.AF_INET6, "ff02::fb") + struct.pack("@I", index))
    for sock in (v4, v6):
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    print(json.dumps({"event": "ready"}), flush=True)
    while True:
        for s in select.select([v4, v6], [], [])[0]:
            data, ancillary, _, source = s.recvmsg(9000, socket.CMSG_SPACE(16))
            kernel = next((struct.unpack("@qq", d[:16]) for level, kind, d in ancillary
                           if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS), None)
            print(json.dumps({"event": "packet", "from": source[0].split("%")[0], "message": data.hex(),
                              "t": time.monotonic(), "kt": kernel[0] + kernel[1] / 1e9 if kernel else None}),
                  flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
