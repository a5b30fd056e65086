"""Capture real mDNS packets from avahi-daemon and python-zeroconf as test resources (run as root).

    capture.py OUTDIR [--zeroconf-python PY] [--dbus-python PY] [--keep]

Writes into OUTDIR, for each packet chosen below:
    <peer>-<what>-<n>.bin   the UDP payload (the DNS message only)
    <peer>-<what>-<n>.txt   tshark's verbose decoding of that one frame (an independent decoder)
and captures-summary.md, the facts of each file (header, records, compression pointers) and a
timeline of every packet captured. The work directory (capture.pcapng, every payload as
all/NNNN-*.bin, index.tsv, the peers' logs) is removed unless --keep.

The lab (lab.py) has four hosts on subnet 53: av 198.18.53.1, zc .2, ab .3, zb .4, each also
fd00:198:18::N; dumpcap records `udp port 5353` on the bridge. Phases, in order, mark which
packets belong to what:
    start      avahi-daemon starts in av as `ciao-av` (host-name probes and announcements)
    avpub      av publishes "Café Dot.Back\\slash._ciaotest._tcp" port 8080 through avahi's D-Bus
               API (peers/avahi_peer.py), TXT k=v, empty=, flag, bin=00 ff 80
    zcpub      python-zeroconf in zc (peers/zc_peer.py, host ciao-zc.local.) registers
               "Zeroconf Ciao Ü._ciaotest._tcp" port 8081 with the same TXT, IPv4 and IPv6
    avbrowse   a second avahi-daemon starts in ab (empty cache) and `avahi-browse -r` runs
               against it for 6 s: its later query carries known answers
    zcbrowse   a zeroconf browser in zb browses and resolves for 9 s
    zcbye      the zeroconf service is unregistered (goodbye)
    avbye      the avahi entry group is freed (goodbye)
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import ipaddress
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

from dnsmsg import CACHE_FLUSH, TYPE_NAMES, TYPES, parse, show_name, txt_strings
from lab import HERE, JsonProc, Lab, first_line, log, parse_log

PEERS = os.path.join(HERE, "peers")
SUBNET = 53
# lab host -> the sender's name in file names and the summary
SENDERS = {"av": "avahi", "zc": "zeroconf", "ab": "avahi-browser", "zb": "zeroconf-browser"}
TYPE = "_ciaotest._tcp"
TXT = {"k": "v".encode().hex(), "empty": "", "flag": None, "bin": "00ff80"}


def is_service(p: dict) -> bool:
    """Whether the packet names the test type anywhere (questions, owners, the names in RDATA)."""
    names = [q[0] for q in p["msg"]["questions"]]
    for section in ("answers", "authority", "additional"):
        for r in p["msg"][section]:
            names += [r["name"], r.get("target", [])]
    return any(b"_ciaotest" in label for name in names for label in name)


def all_in_answers(p: dict) -> bool:
    """A zeroconf announcement proper: the service's records all in the answer section."""
    return is_service(p) and not p["msg"]["additional"]


# (file stem, sender, kind, family, phase, extra predicate or None, description)
WANTED = [
    ("avahi-hostprobe-1", "avahi", "probe", "IPv4", "start", None, "avahi-daemon start-up: host-name probe (IPv4)"),
    ("avahi-hostannounce-1", "avahi", "announce", "IPv4", "start", None, "avahi-daemon start-up: host-name announcement (IPv4)"),
    ("avahi-probe-1", "avahi", "probe", "IPv4", "avpub", is_service, "service probe (IPv4)"),
    ("avahi-probe-2", "avahi", "probe", "IPv6", "avpub", is_service, "service probe (IPv6)"),
    ("avahi-announce-1", "avahi", "announce", "IPv4", "avpub", is_service, "service announcement (IPv4)"),
    ("avahi-announce-2", "avahi", "announce", "IPv6", "avpub", is_service, "service announcement (IPv6)"),
    ("avahi-query-1", "avahi-browser", "query", "IPv4", "avbrowse", is_service, "avahi-browse via avahi-daemon: first PTR query (IPv4)"),
    ("avahi-query-knownanswers-1", "avahi-browser", "query-knownanswers", "IPv4", "avbrowse", is_service, "avahi-browse via avahi-daemon: later query with known answers (IPv4)"),
    ("avahi-response-1", "avahi", "response", "IPv4", "avbrowse", is_service, "response to avahi-browse's query (IPv4)"),
    ("avahi-response-2", "avahi", "response", "IPv4", "zcbrowse", is_service, "response to the zeroconf browser's query (IPv4)"),
    ("avahi-goodbye-1", "avahi", "goodbye", "IPv4", "avbye", is_service, "service goodbye after EntryGroup.Free (IPv4)"),
    ("avahi-goodbye-2", "avahi", "goodbye", "IPv6", "avbye", is_service, "service goodbye after EntryGroup.Free (IPv6)"),
    ("zeroconf-probe-1", "zeroconf", "probe", "IPv4", "zcpub", is_service, "registration probe (IPv4)"),
    ("zeroconf-announce-1", "zeroconf", "announce", "IPv4", "zcpub", all_in_answers, "service announcement (IPv4)"),
    ("zeroconf-announce-2", "zeroconf", "announce", "IPv6", "zcpub", all_in_answers, "service announcement (IPv6)"),
    ("zeroconf-response-1", "zeroconf", "response", "IPv4", "avbrowse", is_service, "response to avahi-browse's PTR query (IPv4)"),
    ("zeroconf-query-1", "zeroconf-browser", "query", "IPv4", "zcbrowse", is_service, "ServiceBrowser's first query (IPv4)"),
    ("zeroconf-query-knownanswers-1", "zeroconf-browser", "query-knownanswers", "IPv4", "zcbrowse", is_service, "ServiceBrowser query with known answers (IPv4)"),
    ("zeroconf-goodbye-1", "zeroconf", "goodbye", "IPv4", "zcbye", is_service, "service goodbye after unregister (IPv4)"),
    ("zeroconf-goodbye-2", "zeroconf", "goodbye", "IPv6", "zcbye", is_service, "service goodbye after unregister (IPv6)"),
]
# the phases in which each sender's responses are its own announcements
ANNOUNCING = {"avahi": ("start", "avpub"), "zeroconf": ("zcpub",), "avahi-browser": ("avbrowse",)}


# ---------------------------------------------------------------------------- the scenarios

def run_scenarios(lab: Lab, args: argparse.Namespace, mark) -> str:
    """The phases of the module's docstring, each marked; returns zeroconf's version."""
    av, zc, ab, zb = (lab[h] for h in SENDERS)
    mark("start")
    lab.start_avahi(av, host_name="ciao-av")
    time.sleep(4)                                    # the host name's announcements

    mark("avpub")
    avahi = av.spawn("avahi-publisher", args.dbus_python, os.path.join(PEERS, "avahi_peer.py"))
    avahi.wait_for({"event": "ready"}, 10)
    avahi.send(cmd="publish", id="av", name="Café Dot.Back\\slash", type=TYPE, port=8080, txt=TXT)
    avahi.wait_for({"event": "published", "id": "av"}, 20)
    time.sleep(8)                                    # the probes and every announcement

    mark("zcpub")
    zeroconf = zeroconf_peer(zc, "zeroconf-publisher", args)
    version = zeroconf.wait_for({"event": "ready"}, 15)["version"]
    zeroconf.send(cmd="publish", id="zc", name="Zeroconf Ciao \u00dc", type=TYPE, port=8081, txt=TXT)
    zeroconf.wait_for({"event": "published", "id": "zc"}, 20)
    time.sleep(8)

    mark("avbrowse")
    lab.start_avahi(ab, host_name="ciao-ab")
    time.sleep(4)
    ab.run("timeout", "-s", "INT", "6", "avahi-browse", "-r", "-p", TYPE, timeout=20, check=False)
    time.sleep(3)

    mark("zcbrowse")
    browser = zeroconf_peer(zb, "zeroconf-browser", args)
    browser.wait_for({"event": "ready"}, 15)
    browser.send(cmd="browse", id="zb", type=TYPE)
    time.sleep(9)
    browser.stop()
    time.sleep(2)

    mark("zcbye")
    zeroconf.send(cmd="unpublish", id="zc")
    zeroconf.wait_for({"event": "unpublished", "id": "zc"}, 10)
    time.sleep(2)

    mark("avbye")
    avahi.send(cmd="unpublish", id="av")
    avahi.wait_for({"event": "unpublished", "id": "av"}, 10)
    time.sleep(2)
    mark("end")
    return version


def zeroconf_peer(host, name: str, args: argparse.Namespace) -> JsonProc:
    return host.spawn(name, args.zeroconf_python, os.path.join(PEERS, "zc_peer.py"),
                      "--host", f"ciao-{host.name}.local.")


# ---------------------------------------------------------------------------- the packets

def read_capture(pcap: str, lab: Lab, phases: list[tuple[str, float]]) -> list[dict]:
    """Every mDNS packet of the capture, parsed, with its sender, family, phase and kind."""
    senders = {}
    for h, sender in SENDERS.items():
        for address in (lab[h].v4, lab[h].v6, lab[h].link_local()):
            senders[ipaddress.ip_address(address)] = sender
    fields = subprocess.run(
        ["tshark", "-r", pcap, "-Y", "mdns", "-T", "fields", "-E", "separator=/t", "-e", "frame.number",
         "-e", "frame.time_epoch", "-e", "ip.src", "-e", "ipv6.src", "-e", "udp.srcport", "-e", "udp.length",
         "-e", "udp.payload"], capture_output=True, text=True, check=True).stdout
    packets = []
    for line in fields.splitlines():
        number, t, v4, v6, sport, length, payload = line.split("\t")[:7]
        buf = bytes.fromhex(payload)
        if len(buf) != int(length) - 8:
            raise RuntimeError(f"frame {number}: {len(buf)} payload bytes, UDP length {length}")
        pointers: list[tuple[int, int]] = []
        msg = parse(buf, pointers)
        if msg["end"] != len(buf):
            raise RuntimeError(f"frame {number}: {len(buf) - msg['end']} bytes after the last record")
        p = dict(number=int(number), t=float(t), family="IPv4" if v4 else "IPv6", source=v4 or v6,
                 sport=int(sport), buf=buf, msg=msg, pointers=pointers,
                 sender=senders.get(ipaddress.ip_address(v4 or v6), "?"),
                 phase=next((name for name, start in reversed(phases) if float(t) >= start), "pre"))
        p["kind"] = kind_of(p)
        packets.append(p)
    return packets


def kind_of(p: dict) -> str:
    m = p["msg"]
    if m["flags"] & 0x8000:
        # avahi's goodbye carries its host's A and AAAA with their usual TTL: any TTL 0 counts
        if any(r["ttl"] == 0 for r in m["answers"]):
            return "goodbye"
        return "announce" if p["phase"] in ANNOUNCING.get(p["sender"], ()) else "response"
    if m["authority"]:
        return "probe"
    return "query-knownanswers" if m["answers"] else "query"


def choose(packets: list[dict]) -> list[tuple[str, str, dict]]:
    """The first packet of each WANTED row, skipping one byte-identical to a packet already chosen."""
    chosen, seen = [], {}
    for stem, sender, kind, family, phase, predicate, description in WANTED:
        for p in packets:
            if (p["sender"], p["kind"], p["family"], p["phase"]) != (sender, kind, family, phase):
                continue
            if predicate and not predicate(p):
                continue
            digest = hashlib.sha256(p["buf"]).digest()
            if digest in seen:
                log(f"{stem}: frame {p['number']} is byte-identical to {seen[digest]}, skipped")
            else:
                seen[digest] = stem
                chosen.append((stem, description, p))
            break
        else:
            log(f"no packet for {stem}")
    return chosen


# ---------------------------------------------------------------------------- the summary

def type_name(t: int) -> str:
    return TYPE_NAMES.get(t, f"TYPE{t}")


def show_bytes(b: bytes) -> str:
    return '"' + "".join(chr(c) if 0x20 <= c < 0x7F and c != 0x5C else f"\\x{c:02x}" for c in b) + '"'


def show_rdata(buf: bytes, r: dict) -> str:
    t, rdata, off = r["type"], r["rdata"], r["rdata_offset"]
    if t == TYPES["A"] or t == TYPES["AAAA"]:
        return str(ipaddress.ip_address(rdata))
    if "target" in r and t != TYPES["SRV"]:
        return show_name(r["target"])
    if t == TYPES["SRV"]:
        priority, weight, port = struct.unpack("!HHH", rdata[:6])
        return f"prio={priority} weight={weight} port={port} target={show_name(r['target'])}"
    if t == TYPES["TXT"]:
        return " ".join(show_bytes(s) for s in txt_strings(rdata)) + f" (rdata hex {rdata.hex()})"
    if t == TYPES["NSEC"]:
        following, o = r["next"], r["next_end"]
        present = []
        while o < off + len(rdata):
            window, length = buf[o], buf[o + 1]
            for i, byte in enumerate(buf[o + 2:o + 2 + length]):
                present += [type_name(window * 256 + i * 8 + bit) for bit in range(8) if byte & (0x80 >> bit)]
            o += 2 + length
        return f"next={show_name(following)} types=[{','.join(present)}] (rdata hex {rdata.hex()})"
    return "hex " + rdata.hex()


def show_class(c: int) -> str:
    return "IN" if c & 0x7FFF == 1 else f"CLASS{c & 0x7FFF}"


def describe(stem: str, description: str, p: dict) -> str:
    m, buf = p["msg"], p["buf"]
    lines = [f"### {stem}.bin\n",
             f"- {description}; sender {p['sender']} ({p['family']} {p['source']}, port {p['sport']}); frame "
             f"{p['number']} of the capture, phase `{p['phase']}`; {len(buf)} bytes",
             f"- header: id=0x{m['id']:04x} flags=0x{m['flags']:04x} ("
             f"{'response' if m['flags'] & 0x8000 else 'query'}{', AA' if m['flags'] & 0x0400 else ''}) "
             f"QD={len(m['questions'])} AN={len(m['answers'])} NS={len(m['authority'])} AR={len(m['additional'])}"]
    for name, t, c in m["questions"]:
        lines.append(f"- Q  `{show_name(name)}` {type_name(t)} {show_class(c)}{' **QU**' if c & 0x8000 else ' QM'}")
    for section, label in (("answers", "AN"), ("authority", "NS"), ("additional", "AR")):
        for r in m[section]:
            flush = " cache-flush" if r["class"] & CACHE_FLUSH else ""
            lines.append(f"- {label} `{show_name(r['name'])}` {type_name(r['type'])} {show_class(r['class'])}{flush} "
                         f"ttl={r['ttl']} rdlen={len(r['rdata'])}: {show_rdata(buf, r)}")
    pointers = sorted(set(p["pointers"]))
    forward = [(a, t) for a, t in pointers if t >= a]
    records = [(r["rdata_offset"], r["rdata_offset"] + len(r["rdata"]))
               for section in ("answers", "authority", "additional") for r in m[section]]
    into_rdata = [(a, t) for a, t in pointers if any(start <= t < end for start, end in records)]
    pairs = lambda ps: ", ".join(f"{a}->{t}" for a, t in ps)        # noqa: E731
    lines.append(f"- compression pointers: {len(pointers)} (offset->target: {pairs(pointers) or 'none'})"
                 + (f"; **FORWARD pointers: {pairs(forward)}**" if forward else "; all backward")
                 + (f"; targets inside an earlier record's RDATA: {pairs(into_rdata)}" if into_rdata else ""))
    lines.append("")
    return "\n".join(lines)


def write_summary(out: str, chosen: list[tuple[str, str, dict]], packets: list[dict], start: float,
                  versions: str) -> None:
    summary = ["# Per-file facts (generated by Scripts/capture-peer-packets.sh)", "",
               f"Captured {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {versions}", "",
               "Names are shown with `\\.` and `\\\\` escaping a literal dot / backslash inside a label; labels are "
               "UTF-8. TXT strings are shown with non-printable bytes as \\xNN. Offsets are from the start of the "
               "DNS message.", ""]
    summary += [describe(stem, description, p) for stem, description, p in chosen]
    summary += ["## Timeline of every captured packet", "",
                "frame, seconds since start, phase, sender, family, kind, QD/AN/NS/AR, bytes", "", "```"]
    summary += [timeline_row(p, start) for p in packets] + ["```", ""]
    with open(os.path.join(out, "captures-summary.md"), "w") as f:
        f.write("\n".join(summary))


def timeline_row(p: dict, start: float) -> str:
    m = p["msg"]
    counts = "/".join(str(len(m[s])) for s in ("questions", "answers", "authority", "additional"))
    return (f"{p['number']}\t{p['t'] - start:.3f}\t{p['phase']}\t{p['sender']}\t{p['family']}\t{p['kind']}\t"
            f"{counts}\t{len(p['buf'])}")


# ---------------------------------------------------------------------------- main

def main() -> int:
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("outdir")
    a.add_argument("--zeroconf-python", default=sys.executable, help="python with zeroconf installed")
    a.add_argument("--dbus-python", default="/usr/bin/python3", help="python with Debian's python3-dbus")
    a.add_argument("--keep", action="store_true", help="keep the work directory")
    args = a.parse_args()
    # SIGTERM and SIGHUP unwind like an exception, so the lab is taken down
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda *_: sys.exit(143))
    out = os.path.abspath(args.outdir)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ciao-capture.")
    pcap = os.path.join(work, "capture.pcapng")
    phases: list[tuple[str, float]] = []

    def mark(name: str) -> None:
        phases.append((name, time.time()))
        log(f"phase {name}")

    try:
        with Lab(f"ciaocap{os.getpid()}", work, list(SENDERS), subnet=SUBNET) as lab:
            dumpcap = JsonProc("dumpcap", ["ip", "netns", "exec", lab.sw, "dumpcap", "-q", "-i", "br0", "-f",
                                           "udp port 5353", "-a", "duration:300", "-w", pcap],
                               work, parse=parse_log, stdin=False)
            lab.procs.append(dumpcap)
            dumpcap.wait_for(lambda e: "Capturing on" in e.get("line", ""), 10, what="'Capturing on' from dumpcap")
            time.sleep(0.5)
            zeroconf_version = run_scenarios(lab, args, mark)
            dumpcap.proc.send_signal(signal.SIGINT)      # dumpcap finishes the file and exits
            if dumpcap.wait_exit(10) is None:
                raise RuntimeError(f"dumpcap did not finish the capture\n{dumpcap.tail()}")
            packets = read_capture(pcap, lab, phases)
        log(f"{len(packets)} mDNS packets captured")
        os.makedirs(os.path.join(work, "all"), exist_ok=True)
        for p in packets:
            name = f"{p['number']:04d}-{p['sender']}-{p['kind']}-{p['family']}.bin"
            with open(os.path.join(work, "all", name), "wb") as f:
                f.write(p["buf"])
        with open(os.path.join(work, "index.tsv"), "w") as f:
            f.writelines(timeline_row(p, phases[0][1]) + "\n" for p in packets)
        chosen = choose(packets)
        avahi_version = first_line("avahi-daemon", "--version").split()[-1]
        tshark_version = first_line("tshark", "--version").rstrip(".")
        versions = f"avahi-daemon {avahi_version}, python-zeroconf {zeroconf_version}, {tshark_version}"
        for stem, _, p in chosen:
            with open(os.path.join(out, stem + ".bin"), "wb") as f:
                f.write(p["buf"])
            decoded = subprocess.run(["tshark", "-r", pcap, "-Y", f"frame.number == {p['number']}", "-V", "-O", "mdns"],
                                     capture_output=True, text=True, check=True).stdout
            with open(os.path.join(out, stem + ".txt"), "w") as f:
                f.write(decoded)
        write_summary(out, chosen, packets, phases[0][1], versions)
        log(f"wrote {len(chosen)} packets to {out} ({versions})")
        return 0
    finally:
        if args.keep:
            log(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
