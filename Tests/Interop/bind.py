"""A BIND 9 authoritative server for wide-area DNS-SD tests, inside one lab host (see lab.py).

`WideAreaZone` writes the lab's zones: `lab.example.` with static DNS-SD services (an instance
name with a space, a dot and UTF-8, binary TXT, a subtype, type enumeration, browse and
registration domains, 200 services of `_bench._tcp`), and the reverse zones of the lab's IPv4
and IPv6 networks with their browse-domain records (RFC 6763 §11). `start_named` runs `named -g`
with a configuration of its own in the host's work directory: never the system's, never in the
root namespace. Updates must be signed with the lab's TSIG key (hmac-sha256), and the
update-policy lets a key write only the DNS-SD names of its own services and its own host.
"""

from __future__ import annotations

import os
import subprocess
import time

from lab import V4NET, V4PREFIX, V6NET, Host, JsonProc, parse_log

DOMAIN = "lab.example."
KEY_NAME = "ciao-lab."
OTHER_KEY_NAME = "other-lab."
# Made up for the lab; it guards nothing outside it.
KEY_SECRET = "bGFiLWtleS1mb3ItY2lhby13aWRlLWFyZWEtdGVzdHMh"
OTHER_KEY_SECRET = "b3RoZXItbGFiLWtleS1mb3ItY2lhby13aWRlLWFyZWEh"
WRONG_SECRET = "d3Jvbmctc2VjcmV0LWZvci10aGUtbGFiLWtleS0wMDAh"

# The static service that every browse test looks for: a space, a dot and UTF-8 in one label.
PRINTER = "Lab Printer. 2nd floor \u2014 caf\u00e9"
PRINTER_TXT = [b"path=/", b"bin=\x00\xff\x08", b"flag", b"empty="]
BENCH_COUNT = 200
BENCH_TYPE = "_bench._tcp"
LIVE_TYPE = "_live._tcp"
# Services added and deleted by nsupdate at TTL 3600: a browse asks again only 48 minutes on.
LONG_TYPE = "_long._tcp"


def zone_label(label: str | bytes) -> str:
    """A label in zone-file syntax: bytes outside letters, digits, '-' and '_' as \\DDD."""
    raw = label.encode() if isinstance(label, str) else label
    return "".join(chr(b) if chr(b).isalnum() and b < 0x80 or chr(b) in "-_" else f"\\{b:03d}" for b in raw)


def zone_txt(strings: list[bytes]) -> str:
    """TXT RDATA in zone-file syntax: each string quoted, every byte outside printable ASCII as \\DDD."""
    def one(s: bytes) -> str:
        return '"' + "".join(chr(b) if 0x20 <= b < 0x7F and chr(b) not in '"\\' else f"\\{b:03d}" for b in s) + '"'
    return " ".join(one(s) for s in strings)


def key_file(name: str, secret: str) -> str:
    """A key in `tsig-keygen`'s format, as nsupdate -k and ciao --key read it."""
    return f'key "{name}" {{\n\talgorithm hmac-sha256;\n\tsecret "{secret}";\n}};\n'


def reverse_v4_browse_name(network: str) -> str:
    """b._dns-sd._udp under a /24's reverse name, host part zero (RFC 6763 §11)."""
    octets = network.split(".")[:3] + ["0"]
    return "b._dns-sd._udp." + ".".join(reversed(octets)) + ".in-addr.arpa."


def reverse_v6_browse_name(prefix64: str) -> str:
    """b._dns-sd._udp under a /64's nibble-reversed name, interface identifier zero."""
    groups = (prefix64.rstrip(":").split(":") + ["0"] * 8)[:4]
    nibbles = "".join(g.rjust(4, "0") for g in groups) + "0" * 16
    return "b._dns-sd._udp." + ".".join(reversed(nibbles)) + ".ip6.arpa."


class WideAreaZone:
    """The lab's zones, written as files into `directory`."""

    def __init__(self, directory: str, server: Host):
        self.directory = directory
        self.server = server

    def static_records(self) -> list[str]:
        inst = zone_label(PRINTER)
        lines = [
            "b._dns-sd._udp PTR @", "db._dns-sd._udp PTR @", "r._dns-sd._udp PTR @",
            "dr._dns-sd._udp PTR @", "lb._dns-sd._udp PTR @",
            "_services._dns-sd._udp PTR _http._tcp", "_services._dns-sd._udp PTR _ipp._tcp",
            f"_services._dns-sd._udp PTR {BENCH_TYPE}", f"_services._dns-sd._udp PTR {LIVE_TYPE}",
            f"_http._tcp PTR {inst}._http._tcp", f"_printer._sub._http._tcp PTR {inst}._http._tcp",
            f"{inst}._http._tcp SRV 0 0 8080 printer", f"{inst}._http._tcp TXT {zone_txt(PRINTER_TXT)}",
            "_http._tcp PTR Plain._http._tcp", "Plain._http._tcp SRV 0 0 80 printer",
            'Plain._http._tcp TXT ""',
            # Ghost: an instance whose SRV and TXT records are missing, so its resolution fails
            "_ipp._tcp PTR Ghost._ipp._tcp",
            "_ipp._tcp PTR Office\\032Printer._ipp._tcp", "Office\\032Printer._ipp._tcp SRV 0 0 631 printer",
            'Office\\032Printer._ipp._tcp TXT "txtvers=1" "rp=ipp/print"',
            f"printer A {V4NET}.50", f"printer AAAA {V6NET}:50",
            # a short TTL, longer than a lookup's 10 s between rounds: its expiry while named is down
            f"short-lived 30 A {V4NET}.51",
            f"Anchor.{LIVE_TYPE} 10 SRV 0 0 9 printer", f"Anchor.{LIVE_TYPE} 10 TXT \"\"",
            f"{LIVE_TYPE} 10 PTR Anchor.{LIVE_TYPE}",
        ]
        for i in range(1, BENCH_COUNT + 1):
            lines += [f"{BENCH_TYPE} PTR bench\\032{i:03d}.{BENCH_TYPE}",
                      f"bench\\032{i:03d}.{BENCH_TYPE} SRV 0 0 {9000 + i} b{i:03d}",
                      f'bench\\032{i:03d}.{BENCH_TYPE} TXT "n={i}"',
                      f"b{i:03d} A {V4PREFIX}.1.{i}"]
        return lines

    def write(self) -> None:
        soa = f"@ SOA ns.{DOMAIN} admin.{DOMAIN} 1 3600 600 86400 10"
        with open(os.path.join(self.directory, "lab.example.zone"), "w") as f:
            f.write(f"$ORIGIN {DOMAIN}\n$TTL 300\n{soa}\n@ NS ns\nns A {self.server.v4}\nns AAAA {self.server.v6}\n")
            f.write("\n".join(self.static_records()) + "\n")
        for zone, name in self.reverse_zones().items():
            with open(os.path.join(self.directory, f"{zone}zone"), "w") as f:
                f.write(f"$ORIGIN {zone}\n$TTL 300\n@ SOA ns.{DOMAIN} admin.{DOMAIN} 1 3600 600 86400 10\n"
                        f"@ NS ns.{DOMAIN}\n{name} PTR {DOMAIN}\n{name.replace('b._dns', 'lb._dns', 1)} PTR {DOMAIN}\n")

    def reverse_zones(self) -> dict[str, str]:
        """Reverse zone name -> its browse-domain record's full name."""
        v4 = reverse_v4_browse_name(f"{V4NET}.0")
        v6 = reverse_v6_browse_name(V6NET + ":")
        v4_zone = ".".join(v4.split(".")[4:])          # the /24's own reverse zone
        v6_zone = ".".join(v6.split(".")[19:])         # the /64's reverse zone, 16 nibbles down
        return {v4_zone: v4, v6_zone: v6}

    def named_conf(self) -> str:
        d = self.directory
        zones = [f'zone "{DOMAIN}" {{ type primary; file "{d}/lab.example.zone"; update-policy {{\n'
                 # each key may write its services' SRV/TXT, the PTRs that name them, and its host
                 f'    grant {KEY_NAME} wildcard *._http._tcp.{DOMAIN} SRV TXT;\n'
                 f'    grant {KEY_NAME} wildcard *.{LIVE_TYPE}.{DOMAIN} SRV TXT;\n'
                 f'    grant {KEY_NAME} name _http._tcp.{DOMAIN} PTR;\n'
                 f'    grant {KEY_NAME} name {LIVE_TYPE}.{DOMAIN} PTR;\n'
                 f'    grant {KEY_NAME} wildcard *.{LONG_TYPE}.{DOMAIN} SRV TXT;\n'
                 f'    grant {KEY_NAME} name {LONG_TYPE}.{DOMAIN} PTR;\n'
                 f'    grant {KEY_NAME} name _printer._sub._http._tcp.{DOMAIN} PTR;\n'
                 f'    grant {KEY_NAME} name ciao-host.{DOMAIN} A AAAA;\n'
                 f'    grant {OTHER_KEY_NAME} wildcard *._http._tcp.{DOMAIN} SRV TXT;\n'
                 f'    grant {OTHER_KEY_NAME} name _http._tcp.{DOMAIN} PTR;\n'
                 f'    grant {OTHER_KEY_NAME} name other-host.{DOMAIN} A AAAA;\n'
                 f'}}; allow-transfer {{ {V4NET}.0/24; {V6NET}:/64; }}; }};']
        for zone in self.reverse_zones():
            zones.append(f'zone "{zone}" {{ type primary; file "{d}/{zone}zone"; allow-update {{ none; }}; }};')
        return (f'include "{d}/ciao-lab.key";\ninclude "{d}/other-lab.key";\n'
                f'options {{\n    directory "{d}";\n    pid-file "{d}/named.pid";\n'
                f'    listen-on port 53 {{ {self.server.v4}; }};\n    listen-on-v6 port 53 {{ {self.server.v6}; }};\n'
                '    recursion no;\n    notify no;\n    querylog yes;\n    max-records-per-type 0;\n    dnssec-validation no;\n};\n' + "\n".join(zones) + "\n")


def start_named(host: Host) -> tuple[JsonProc, WideAreaZone]:
    """Write the zones, keys and configuration into `host`'s directory and run named there;
    returns once it answers for the zone."""
    d = os.path.join(host.dir, "named")
    os.makedirs(d, exist_ok=True)
    os.chmod(d, 0o777)
    zone = WideAreaZone(d, host)
    zone.write()
    for name, secret in ((KEY_NAME, KEY_SECRET), (OTHER_KEY_NAME, OTHER_KEY_SECRET)):
        with open(os.path.join(d, name.rstrip(".") + ".key"), "w") as f:
            f.write(key_file(name, secret))
    with open(os.path.join(d, "wrong.key"), "w") as f:
        f.write(key_file(KEY_NAME, WRONG_SECRET))
    with open(os.path.join(d, "named.conf"), "w") as f:
        f.write(zone.named_conf())
    checked = subprocess.run(["named-checkconf", "-z", os.path.join(d, "named.conf")], capture_output=True, text=True)
    if checked.returncode != 0:
        raise RuntimeError(f"named-checkconf: {checked.stdout}{checked.stderr}")
    named = host.spawn("named", "named", "-g", "-u", "root", "-c", os.path.join(d, "named.conf"), stdin=False,
                       parse=parse_log)
    named.wait_for(lambda e: "running" in e.get("line", ""), 20, what="'running' from named")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if "NOERROR" in host.run("dig", f"@{host.v4}", "+time=1", "+tries=1", "SOA", DOMAIN, check=False):
            return named, zone
        time.sleep(0.2)
    raise RuntimeError(f"named in {host.name} does not answer for {DOMAIN}\n{named.tail()}")
