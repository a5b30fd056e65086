#!/usr/bin/env python3
"""python-zeroconf codec benchmark on the packets dumped by CiaoCodecBenchmark.

Usage:
    swift run -c release CiaoCodecBenchmark --dump DIR
    python3 Benchmarks/Codec/peer_codec_benchmark.py DIR [SECONDS-PER-CASE]

Reads DIR/cases.tsv (``slug TAB decode|decode+encode TAB name`` per line, written by
``--dump``) and DIR/<slug>.bin, and prints the same markdown table as CiaoCodecBenchmark:

    | case | bytes | decode/s | ns/decode | encode/s | ns/encode |

Decode is ``DNSIncoming(data)`` followed by ``.questions`` and ``.answers()``: zeroconf parses the
header and questions in the constructor but defers the answer, authority and additional sections
until ``answers()`` is first called (when the packet has questions), so both are touched to make
every record really be parsed. Encode rebuilds the decoded records, section by section, into a
fresh ``DNSOutgoing`` and calls ``.packets()`` (a DNSOutgoing renders once and caches, so each
iteration builds a new one; this is how zeroconf encodes every message it sends). Cases marked
``decode`` are only decoded. Each rate is the best of 3 runs of about SECONDS-PER-CASE (default 1)
after 1000 warm-up iterations, timed in batches of 100 with time.perf_counter, in one thread.

Below the table, notes say whether zeroconf accepted each packet whole (``valid`` and every
record decoded) and whether its re-encoding is byte-identical to the input, since a codec that
gives up early on a packet is not doing the same work.

zeroconf ships Cython-compiled modules in its wheels and falls back to pure Python otherwise;
the header line says which one is loaded (``incoming`` is compiled when its ``__file__`` is a
``.so``/``.pyd``), because the two differ several-fold.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import zeroconf
from zeroconf._protocol import incoming as incoming_module
from zeroconf._protocol import outgoing as outgoing_module
from zeroconf._protocol.incoming import DNSIncoming
from zeroconf._protocol.outgoing import DNSOutgoing


def measure(seconds: float, body: Callable[[], object]) -> float:
    """Operations per second of body, the best of 3 runs of about `seconds` each."""
    for _ in range(1000):
        body()
    best = 0.0
    for _ in range(3):
        iterations = 0
        start = time.perf_counter()
        elapsed = 0.0
        while elapsed < seconds:
            for _ in range(100):
                body()
            iterations += 100
            elapsed = time.perf_counter() - start
        best = max(best, iterations / elapsed)
    return best


def decode(data: bytes) -> DNSIncoming:
    message = DNSIncoming(data)
    message.questions
    message.answers()
    return message


def encode(message: DNSIncoming) -> list[bytes]:
    """Writes the records of `message` back, each in the section it was read from."""
    records = message.answers()
    answers = message.num_answers
    authorities = answers + message.num_authorities
    out = DNSOutgoing(message.flags, multicast=message.id == 0, id_=message.id)
    for question in message.questions:
        out.add_question(question)
    for record in records[:answers]:
        out.add_answer_at_time(record, 0)
    for record in records[answers:authorities]:
        out.add_authorative_answer(record)
    for record in records[authorities:]:
        out.add_additional_answer(record)
    return out.packets()


def is_compiled(module: object) -> bool:
    return str(getattr(module, "__file__", "")).endswith((".so", ".pyd"))


def rate(value: float) -> str:
    return f"{value / 1e6:.2f} M" if value >= 1e6 else f"{value / 1e3:.2f} k"


def main() -> None:
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.split("\n\n")[1])
    directory = Path(sys.argv[1])
    seconds = float(sys.argv[2]) if len(sys.argv) == 3 else 1.0
    cases = [line.split("\t", 2) for line in (directory / "cases.tsv").read_text().splitlines() if line]

    compiled = is_compiled(incoming_module) and is_compiled(outgoing_module)
    print(
        f"python-zeroconf {zeroconf.__version__} codec benchmark "
        f"({'Cython-compiled' if compiled else 'pure Python'}, Python {sys.version.split()[0]}): "
        f"one core, {seconds} s per case, best of 3 runs"
    )
    print()
    print("| case | bytes | decode/s | ns/decode | encode/s | ns/encode |")
    print("|---|---:|---:|---:|---:|---:|")
    notes = []
    for slug, mode, name in cases:
        data = (directory / f"{slug}.bin").read_bytes()
        message = decode(data)
        expected = message.num_answers + message.num_authorities + message.num_additionals
        if not message.valid or len(message.questions) != message.num_questions or len(message.answers()) != expected:
            notes.append(
                f"{name}: zeroconf did not accept the whole packet (valid={message.valid}, "
                f"{len(message.questions)} of {message.num_questions} questions and "
                f"{len(message.answers())} of {expected} records decoded)"
            )
        decode_rate = measure(seconds, lambda: decode(data))
        encode_rate = None
        if mode == "decode+encode":
            packets = encode(message)
            same = packets == [data]
            notes.append(
                f"{name}: zeroconf re-encodes {'the identical' if same else 'a different'} "
                f"{'+'.join(str(len(p)) for p in packets)}-byte packet"
                + ("" if same else f" (input {len(data)} bytes)")
            )
            encode_rate = measure(seconds, lambda: encode(message))
        print(
            f"| {name} | {len(data)} | {rate(decode_rate)} | {1e9 / decode_rate:.2f} | "
            + (f"{rate(encode_rate)} | {1e9 / encode_rate:.2f} |" if encode_rate else "– | – |")
        )
    print()
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
