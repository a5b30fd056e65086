"""avahi-browse's parseable output (`-p`, which `ciao browse -p` also prints) as event dicts
(stdlib only).

Named avahi_output, not avahi, so that it never shadows Debian's python3-avahi module.
"""

from __future__ import annotations

import re


def avahi_unescape(s: str) -> bytes:
    """avahi's escaping: \\DDD (decimal byte) and \\C (the character C)."""
    out, i, raw = bytearray(), 0, s.encode()
    while i < len(raw):
        if raw[i] == 0x5C and len(raw[i + 1:i + 4]) == 3 and raw[i + 1:i + 4].isdigit():
            out.append(int(raw[i + 1:i + 4]))
            i += 4
        elif raw[i] == 0x5C and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return bytes(out)


def avahi_txt(field: str) -> dict:
    """avahi-browse's TXT field ("a=b" "flag" ...) -> {key: hex or null}."""
    strings = [avahi_unescape(m) for m in re.findall(r'"((?:[^"\\]|\\.)*)"', field)]
    out: dict = {}
    for s in strings:
        k, eq, v = s.partition(b"=")
        out.setdefault(k.decode("utf-8", "replace").lower(), v.hex() if eq else None)
    return out


def parse_avahi_browse_line(line: str) -> dict | None:
    """One `avahi-browse -p` line -> found / resolved / removed event (None for other lines)."""
    f = line.split(";")
    kinds = {"+": "found", "-": "removed", "=": "resolved"}
    if len(f) < 6 or f[0] not in kinds:
        return None
    ev = {"event": kinds[f[0]], "interface": f[1], "protocol": f[2],
          "name": avahi_unescape(f[3]).decode("utf-8", "replace"), "type": f[4], "domain": f[5]}
    if f[0] == "=" and len(f) >= 10:
        ev.update(host=f[6], address=f[7], port=int(f[8]), txt=avahi_txt(";".join(f[9:])))
    return ev
