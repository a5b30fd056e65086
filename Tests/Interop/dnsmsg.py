"""Just enough DNS message encoding and decoding for the raw querier (stdlib only).

Names are handled as lists of labels (bytes), so instance names may hold dots or any UTF-8;
`show_name` joins them with '.' for messages. Decoding follows compression pointers with a hop
limit and raises ValueError on anything malformed.
"""

from __future__ import annotations

import struct

TYPES = {"A": 1, "PTR": 12, "TXT": 16, "AAAA": 28, "SRV": 33, "NSEC": 47, "ANY": 255}
TYPE_NAMES = {v: k for k, v in TYPES.items()}
CLASS_IN = 1
CACHE_FLUSH = 0x8000


def encode_name(name: list[bytes]) -> bytes:
    return b"".join(bytes([len(l)]) + l for l in name) + b"\x00"


def build_query(qid: int, questions: list[tuple[list[bytes], int]], unicast_response: bool = False) -> bytes:
    """A standard query (flags 0) with the given (name, qtype) questions, class IN."""
    qclass = CLASS_IN | (0x8000 if unicast_response else 0)
    body = b"".join(encode_name(n) + struct.pack("!HH", t, qclass) for n, t in questions)
    return struct.pack("!6H", qid, 0, len(questions), 0, 0, 0) + body


def _name(buf: bytes, off: int) -> tuple[list[bytes], int]:
    out: list[bytes] = []
    end = None
    for _ in range(128):
        ln = buf[off]
        if ln & 0xC0 == 0xC0:
            if end is None:
                end = off + 2
            off = ((ln & 0x3F) << 8) | buf[off + 1]
            continue
        if ln == 0:
            return out, (off + 1 if end is None else end)
        out.append(buf[off + 1: off + 1 + ln])
        off += 1 + ln
    raise ValueError("compression loop")


def parse(buf: bytes) -> dict:
    """{id, flags, questions: [(name, type, class)], answers/authority/additional:
    [{name, type, class, ttl, rdata, target?}]} — `class` keeps the top (cache-flush / QU) bit."""
    if len(buf) < 12:
        raise ValueError("short message")
    qid, flags, qd, an, ns, ar = struct.unpack("!6H", buf[:12])
    off = 12
    msg: dict = {"id": qid, "flags": flags, "questions": []}
    for _ in range(qd):
        n, off = _name(buf, off)
        t, c = struct.unpack("!HH", buf[off:off + 4])
        off += 4
        msg["questions"].append((n, t, c))
    for section, count in (("answers", an), ("authority", ns), ("additional", ar)):
        recs = []
        for _ in range(count):
            n, off = _name(buf, off)
            t, c, ttl, rdlen = struct.unpack("!HHIH", buf[off:off + 10])
            off += 10
            if off + rdlen > len(buf):
                raise ValueError("rdata past the end")
            rec = {"name": n, "type": t, "class": c, "ttl": ttl, "rdata": buf[off:off + rdlen]}
            if t == TYPES["PTR"]:
                rec["target"] = _name(buf, off)[0]
            elif t == TYPES["SRV"]:
                rec["port"] = struct.unpack("!H", buf[off + 4:off + 6])[0]
                rec["target"] = _name(buf, off + 6)[0]
            recs.append(rec)
            off += rdlen
        msg[section] = recs
    return msg


def same_name(a: list[bytes], b: list[bytes]) -> bool:
    """DNS name equality: ASCII case-insensitive, label by label."""
    return len(a) == len(b) and all(x.lower() == y.lower() for x, y in zip(a, b))


def show_name(n: list[bytes]) -> str:
    return ".".join(l.decode("utf-8", "replace").replace(".", "\\.") for l in n) + "."


# ---------------------------------------------------------------------------- responses

TYPES.update({"CNAME": 5, "SOA": 6})
TYPE_NAMES.update({5: "CNAME", 6: "SOA"})


def labels(text: str) -> list[bytes]:
    """'a.b.example.' → [b'a', b'b', b'example'] (no escapes: the lab's zone and key names have none)."""
    return [l.encode() for l in text.rstrip(".").split(".") if l]


def rr(name: bytes, rtype: int, ttl: int, rdata: bytes, rclass: int = CLASS_IN) -> bytes:
    """One resource record; `name` is already encoded (a name or a compression pointer)."""
    return name + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def build_response(qid: int, flags: int, question: bytes, answers: list[bytes], rcode: int = 0,
                   authority: list[bytes] = (), additional: list[bytes] = ()) -> bytes:
    """A response: QR set, `flags` or'd in (AA, TC, RD copied by the caller), one raw question."""
    header = struct.pack("!6H", qid, 0x8000 | flags | rcode, 1 if question else 0, len(answers),
                         len(authority), len(additional))
    return header + question + b"".join(answers) + b"".join(authority) + b"".join(additional)


def raw_question(buf: bytes) -> tuple[list[bytes], int, bytes]:
    """The first question of a query: (name, qtype, its raw bytes as they came)."""
    name, off = _name(buf, 12)
    qtype = struct.unpack("!H", buf[off:off + 2])[0]
    return name, qtype, buf[12:off + 4]
