"""Just enough DNS message encoding and decoding for the lab's queriers, servers and capture
tool (stdlib only).

Names are handled as lists of labels (bytes), so instance names may hold dots or any UTF-8;
`show_name` joins them with '.' for messages. Decoding follows compression pointers with a hop
limit and raises ValueError on anything malformed.
"""

from __future__ import annotations

import struct

TYPES = {"A": 1, "NS": 2, "CNAME": 5, "SOA": 6, "PTR": 12, "HINFO": 13, "TXT": 16, "AAAA": 28, "SRV": 33,
         "OPT": 41, "NSEC": 47, "TSIG": 250, "ANY": 255}
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


def read_name(buf: bytes, off: int, pointers: list[tuple[int, int]] | None = None) -> tuple[list[bytes], int]:
    """The name at `off` and the offset just past it; each compression pointer followed is
    appended to `pointers` as (its offset, its target) when a list is given."""
    out: list[bytes] = []
    end = None
    for _ in range(128):
        ln = buf[off]
        if ln & 0xC0 == 0xC0:
            if end is None:
                end = off + 2
            target = ((ln & 0x3F) << 8) | buf[off + 1]
            if pointers is not None:
                pointers.append((off, target))
            off = target
            continue
        if ln == 0:
            return out, (off + 1 if end is None else end)
        out.append(buf[off + 1: off + 1 + ln])
        off += 1 + ln
    raise ValueError("compression loop")


def parse(buf: bytes, pointers: list[tuple[int, int]] | None = None) -> dict:
    """{id, flags, questions: [(name, type, class)], answers/authority/additional:
    [{name, type, class, ttl, rdata, rdata_offset, ...}], end} — `class` keeps the top
    (cache-flush / QU) bit, `end` is the offset past the last record. PTR, CNAME and NS records
    also carry `target`, SRV records `port` and `target`, NSEC records `next` (the next name) and
    `next_end` (the offset of its type bitmaps). Compression pointers followed go to `pointers`,
    as in `read_name`."""
    if len(buf) < 12:
        raise ValueError("short message")
    qid, flags, qd, an, ns, ar = struct.unpack("!6H", buf[:12])
    off = 12
    msg: dict = {"id": qid, "flags": flags, "questions": []}
    for _ in range(qd):
        n, off = read_name(buf, off, pointers)
        t, c = struct.unpack("!HH", buf[off:off + 4])
        off += 4
        msg["questions"].append((n, t, c))
    for section, count in (("answers", an), ("authority", ns), ("additional", ar)):
        recs = []
        for _ in range(count):
            n, off = read_name(buf, off, pointers)
            t, c, ttl, rdlen = struct.unpack("!HHIH", buf[off:off + 10])
            off += 10
            if off + rdlen > len(buf):
                raise ValueError("rdata past the end")
            rec = {"name": n, "type": t, "class": c, "ttl": ttl, "rdata": buf[off:off + rdlen], "rdata_offset": off}
            if t in (TYPES["PTR"], TYPES["CNAME"], TYPES["NS"]):
                rec["target"] = read_name(buf, off, pointers)[0]
            elif t == TYPES["SRV"]:
                rec["port"] = struct.unpack("!H", buf[off + 4:off + 6])[0]
                rec["target"] = read_name(buf, off + 6, pointers)[0]
            elif t == TYPES["NSEC"]:
                rec["next"], rec["next_end"] = read_name(buf, off, pointers)
            recs.append(rec)
            off += rdlen
        msg[section] = recs
    msg["end"] = off
    return msg


def txt_strings(rdata: bytes) -> list[bytes]:
    """A TXT record's character-strings, in wire order."""
    strings, o = [], 0
    while o < len(rdata):
        strings.append(rdata[o + 1:o + 1 + rdata[o]])
        o += 1 + rdata[o]
    return strings


def same_name(a: list[bytes], b: list[bytes]) -> bool:
    """DNS name equality: ASCII case-insensitive, label by label."""
    return len(a) == len(b) and all(x.lower() == y.lower() for x, y in zip(a, b))


def show_name(n: list[bytes]) -> str:
    """Labels joined with '.', a dot or backslash inside a label escaped; bytes that are not
    UTF-8 shown as \\xNN."""
    return ".".join(l.replace(b"\\", b"\\\\").replace(b".", b"\\.").decode("utf-8", "backslashreplace")
                    for l in n) + "."


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
    name, off = read_name(buf, 12)
    qtype = struct.unpack("!H", buf[off:off + 2])[0]
    return name, qtype, buf[12:off + 4]
