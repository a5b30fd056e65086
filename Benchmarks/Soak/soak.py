#!/usr/bin/env python3
"""Soak benchmark: spurious removals of live services, Ciao's browser beside avahi's, under loss
and a third-party querier. Run as root, through Benchmarks/soak-benchmark.sh, which installs what
is missing and builds `ciao`.

    soak.py --ciao PATH --out DIR [--minutes N] [--loss PCT] [--query-interval S]
            [--services N] [--zeroconf-python PY] [--prefix P] [--command STR] [--build STR]

One lab of network namespaces (Tests/Interop/lab.py, imported, not copied), one segment:

    p4    avahi-daemon with use-ipv6=no (an IPv4-only responder), N static services
    p46   avahi-daemon dual-stack, N static services
    pc    N `ciao publish` processes (dual-stack)
    pz    python-zeroconf (zc_peer.py), N services, dual-stack (only with --zeroconf-python)
    bc    `ciao browse -p TYPE`                        } LOSS % of the packets crossing each
    ba    avahi-daemon + `avahi-browse -p TYPE`        } browser host's link dropped, both ways
    q     a querier: one PTR query for TYPE every S s over IPv4 (224.0.0.251) and over IPv6
          (ff02::fb), from port 5353 (Tests/Interop/peers/raw_query.py)

Every publisher stays up the whole run (checked at the end), so every `-` line a browser prints
for one of them is spurious. Lines are counted per entry (service name, protocol); the `-` lines
of one service within REMOVAL_GROUP_S of each other are one removal (Ciao prints one line per
protocol of the interface for a single removal). A flap is a removal whose entries were all
listed again before the end; its gap is the longest time one of them was missing.

Writes DIR/results.json and DIR/results.md, and keeps every process's log and the two browser
hosts' captures in DIR/work (dumpcap on civ0 inside the host, so before the loss rules: an
inbound packet in the capture may still have been dropped before the browser got it, an
outbound one before it reached the switch). Each removal in results.md comes with the capture's
packets about TYPE and that instance from EXCERPT_BEFORE_S before it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
INTEROP = os.path.join(HERE, "..", "..", "Tests", "Interop")
sys.path.insert(0, INTEROP)
import dnsmsg  # noqa: E402
from avahi_output import parse_avahi_browse_line  # noqa: E402
from lab import IFNAME, Host, JsonProc, Lab, first_line, log, parse_log  # noqa: E402

PEERS = os.path.join(INTEROP, "peers")
TYPE = "_ciaosoak._tcp"
REMOVAL_GROUP_S = 1.0          # `-` lines of one service this close together are one removal
EXCERPT_BEFORE_S = 20.0        # capture excerpt around a removal: this long before it ...
EXCERPT_AFTER_S = 2.0          # ... and this long after
BROWSERS = {"ciao": "bc", "avahi": "ba"}


# ---------------------------------------------------------------------------- publishers

def avahi_service_file(name: str, port: int) -> str:
    """An avahi static service file (/etc/avahi/services/*.service) for `name` of TYPE on `port`."""
    return ("<?xml version=\"1.0\" standalone='no'?>\n"
            "<!DOCTYPE service-group SYSTEM \"avahi-service.dtd\">\n"
            f"<service-group>\n  <name>{escape(name)}</name>\n"
            f"  <service>\n    <type>{TYPE}</type>\n    <port>{port}</port>\n"
            "    <txt-record>soak=1</txt-record>\n  </service>\n</service-group>\n")


def start_avahi_publisher(lab: Lab, h: Host, names: list[str], port: int, ipv6: bool) -> JsonProc:
    """avahi-daemon in `h` (IPv4 only unless `ipv6`) with one static service per name (ports
    `port`, `port`+1, ...); returns once the daemon says each is established (20 s at most each,
    else lab.Failure)."""
    services = os.path.join(h.dir, "services")
    os.makedirs(services, exist_ok=True)
    for i, name in enumerate(names):
        with open(os.path.join(services, f"soak{i}.service"), "w") as f:
            f.write(avahi_service_file(name, port + i))
    daemon = lab.start_avahi(h, ipv6=ipv6)
    for name in names:
        daemon.wait_for(lambda e, n=name: f'Service "{n}"' in e.get("line", "")
                        and "successfully established" in e.get("line", ""), 20,
                        what=f"avahi establishing {name!r}")
    return daemon


def start_ciao_publishers(h: Host, ciao: str, names: list[str], port: int) -> list[JsonProc]:
    """One `ciao publish --json --no-rename NAME TYPE PORT soak=1` process per name in `h`;
    returns once each has printed its `published` event (20 s at most each, else lab.Failure)."""
    procs = [h.spawn(f"ciao-publish-{i}", ciao, "publish", "--json", "--no-rename", name, TYPE, str(port + i),
                     "soak=1", stdin=False) for i, name in enumerate(names)]
    for p, name in zip(procs, names):
        p.wait_for({"event": "published", "name": name}, 20)
    return procs


def start_zeroconf_publisher(h: Host, python: str, names: list[str], port: int) -> JsonProc:
    """zc_peer.py in `h` publishing each name (rename off); returns once all are published."""
    p = h.spawn("zeroconf", python, os.path.join(PEERS, "zc_peer.py"), "--host", f"{h.name}-zc.local.")
    p.wait_for({"event": "ready"}, 20)
    for i, name in enumerate(names):
        p.send(cmd="publish", id=f"s{i}", name=name, type=TYPE, port=port + i, txt={"soak": "31"}, rename=False)
    for i in range(len(names)):
        p.wait_for({"event": "published", "id": f"s{i}"}, 20)
    return p


# ---------------------------------------------------------------------------- the querier

class Querier(threading.Thread):
    """Host `q` asks for TYPE's PTR every `interval` s, from port 5353, over IPv4 to 224.0.0.251
    and over IPv6 to ff02::fb (one raw_query.py run each, replies not awaited). `sent` holds
    (monotonic time, family) per query sent, `errors` what failed; `halt` stops it."""

    def __init__(self, q: Host, interval: float):
        super().__init__(daemon=True)
        self.q, self.interval = q, interval
        self.sent: list[tuple[float, str]] = []
        self.errors: list[str] = []
        self.halt = threading.Event()

    def ask(self, src: str, dst: str) -> float:
        """One query from `src` to `dst`; returns its send time (from raw_query's `done` line)."""
        out = self.q.run(sys.executable, os.path.join(PEERS, "raw_query.py"), "--src", src, "--sport", "5353",
                         "--dst", dst, "--qtype", "PTR", "--wait", "0.05", "--name", *TYPE.split("."), "local",
                         timeout=10)
        done = json.loads(out.strip().splitlines()[-1])
        return float(done["sent"])

    def run(self) -> None:
        while not self.halt.is_set():
            started = time.monotonic()
            for family, src, dst in (("IPv4", self.q.v4, "224.0.0.251"), ("IPv6", self.q.v6, "ff02::fb")):
                try:
                    self.sent.append((self.ask(src, dst), family))
                except (RuntimeError, ValueError, KeyError, IndexError, subprocess.TimeoutExpired) as e:
                    self.errors.append(f"{time.monotonic():.3f} {family}: {e}")
            self.halt.wait(max(0.0, self.interval - (time.monotonic() - started)))


# ---------------------------------------------------------------------------- counting

def tally(events: list[dict], watched: dict[str, str], t_start: float, t_end: float) -> dict:
    """What one browser's found/removed events (avahi-browse -p lines, parsed) in
    [t_start, t_end] say about the `watched` services (name -> publisher host), all of them live
    throughout: removals (the `-` lines of one service within REMOVAL_GROUP_S form one), each
    with its entries (protocols), whether every entry came back (a flap) and the gap; plus the
    time every watched service was first listed, the ones never listed, the ones not listed at
    the end, and names seen that are not watched. Times are seconds since t_start."""
    present: dict[tuple[str, str], bool] = {}
    removals: list[dict] = []
    open_by_name: dict[str, dict] = {}
    first_found: dict[str, float] = {}
    others: set[str] = set()
    lines = 0
    for e in sorted((e for e in events if e.get("event") in ("found", "removed")
                     and e.get("type") == TYPE and t_start <= e["t"] <= t_end), key=lambda e: e["t"]):
        name, proto, t = e["name"], e["protocol"], e["t"] - t_start
        if name not in watched:
            others.add(name)
            continue
        key = (name, proto)
        if e["event"] == "found":
            first_found.setdefault(name, t)
            present[key] = True
            for r in removals:
                if r["name"] == name and proto in r["missing"]:
                    r["back"][proto] = t
                    r["missing"].discard(proto)
            continue
        lines += 1
        was = present.get(key, False)
        present[key] = False
        r = open_by_name.get(name)
        if r is None or t - r["t_last"] > REMOVAL_GROUP_S:
            r = {"name": name, "publisher": watched[name], "t": t, "t_last": t, "protocols": [], "missing": set(),
                 "back": {}, "listed_before": was}
            removals.append(r)
            open_by_name[name] = r
        r["t_last"] = t
        r["protocols"].append(proto)
        r["missing"].add(proto)
    end = t_end - t_start
    for r in removals:
        r["flap"] = not r["missing"]
        r["gap_s"] = round(max([r["back"].get(p, end) for p in r["protocols"]]) - r["t"], 3)
        still = sorted(p for (n, p), on in present.items() if n == r["name"] and on and p not in r["protocols"])
        r["still_listed_on"] = still
        r["missing"] = sorted(r["missing"])
        r["t"] = round(r["t"], 3)
        del r["t_last"]
    listed_at_end = {n for (n, _), on in present.items() if on}
    hours = end / 3600
    return {
        "services_watched": len(watched),
        "entries": sorted(f"{n}/{p}" for (n, p) in present),
        "minutes": round(end / 60, 2),
        "removal_lines": lines,
        "spurious_removals": len(removals),
        "per_hour": round(len(removals) / hours, 2) if hours > 0 else None,
        "flaps": sum(1 for r in removals if r["flap"]),
        "longest_gap_s": max((r["gap_s"] for r in removals), default=0.0),
        "all_listed_after_s": round(max(first_found.values()), 3) if len(first_found) == len(watched) else None,
        "never_listed": sorted(set(watched) - set(first_found)),
        "not_listed_at_end": sorted(set(watched) - listed_at_end),
        "other_names": sorted(others),
        "removals": removals,
    }


# ---------------------------------------------------------------------------- captures

def read_capture(path: str) -> list[dict]:
    """Every mDNS message of a capture file (tshark gives time, source and UDP payload;
    dnsmsg.parse decodes it): epoch time, source, response or not, the questions and every
    record of the answer and additional sections. Messages that do not parse are left out; the
    list is empty if tshark cannot read the file."""
    r = subprocess.run(["tshark", "-r", path, "-n", "-Y", "mdns", "-T", "fields", "-e", "frame.time_epoch",
                        "-e", "ip.src", "-e", "ipv6.src", "-e", "udp.payload"], capture_output=True, text=True)
    out = []
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) < 4 or not f[0]:
            continue
        try:
            msg = dnsmsg.parse(bytes.fromhex(f[3].replace(":", "")))
        except (ValueError, IndexError, struct.error):
            continue
        out.append({"t": float(f[0]), "src": f[1] or f[2], "response": bool(msg["flags"] & 0x8000),
                    "questions": msg["questions"], "records": msg["answers"] + msg["additional"]})
    return out


def excerpt(packets: list[dict], epoch: float, name: str, hosts: dict[str, str]) -> list[str]:
    """The messages from EXCERPT_BEFORE_S before `epoch` to EXCERPT_AFTER_S after it that ask
    about TYPE or instance `name`, or carry a record of that instance (its PTR, SRV, TXT), one
    line each: time relative to `epoch`, source (with its lab host, from `hosts`: address ->
    host name), the questions (with the number of known answers) or the records with their TTLs
    (TTL 0: a goodbye)."""
    type_labels = [l.encode() for l in TYPE.split(".")] + [b"local"]
    instance = [name.encode()] + type_labels
    lines = []
    for p in packets:
        if not epoch - EXCERPT_BEFORE_S <= p["t"] <= epoch + EXCERPT_AFTER_S:
            continue
        qs = [q for q in p["questions"] if dnsmsg.same_name(q[0], type_labels) or dnsmsg.same_name(q[0], instance)]
        rs = [r for r in p["records"] if dnsmsg.same_name(r["name"], instance)
              or (dnsmsg.same_name(r["name"], type_labels) and dnsmsg.same_name(r.get("target", []), instance))]
        if not qs and not rs:
            continue
        kinds = dnsmsg.TYPE_NAMES
        if p["response"]:
            what = "response " + ", ".join(f"{kinds.get(r['type'], r['type'])} ttl {r['ttl']}" for r in rs)
        else:
            what = ("query " + ", ".join(f"{dnsmsg.show_name(q[0])} {kinds.get(q[1], q[1])}" for q in qs)
                    + f" ({len(p['records'])} known answers)")
        src = f"{hosts.get(p['src'], '?')} {p['src']}"
        lines.append(f"{p['t'] - epoch:+8.3f} s  {src:<26} {what}")
    return lines


# ---------------------------------------------------------------------------- report

def write_markdown(res: dict, path: str) -> None:
    """results.md: the settings, the per-browser table, every removal with its capture excerpt,
    the checks, and the exact command line."""
    m = res["meta"]
    out = [f"# Soak: spurious removals, Ciao beside avahi ({m['started']})", "",
           f"Command: `{m['command']}`", "",
           f"- {m['minutes_asked']} minutes asked; {m['services_per_publisher']} services per publisher on "
           f"{len(m['publishers'])} publisher hosts: " + ", ".join(f"{h} ({what})" for h, what in m["publishers"].items()),
           f"- {m['loss_percent']} % loss on each browser host's link, both directions (nftables); publishers' and "
           "the querier's links lossless",
           f"- querier: one PTR query for `{TYPE}` every {m['query_interval_s']:g} s over IPv4 and over IPv6, "
           f"{res['querier']['sent']} sent ({res['querier']['errors']} failed)",
           f"- {m['versions'].get('ciao', '?')}, {m['versions'].get('avahi-daemon', '?')}, "
           f"zeroconf publisher: {m['versions'].get('zeroconf', 'none')}; build: {m['build']}",
           "",
           "| browser | services watched | minutes | spurious removals | per hour | flaps | longest gap |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for b, t in res["browsers"].items():
        per_hour = "?" if t["per_hour"] is None else f"{t['per_hour']:g}"
        out.append(f"| {b} (`{t['command']}`) | {t['services_watched']} | {t['minutes']:g} | "
                   f"{t['spurious_removals']} ({t['removal_lines']} lines) | {per_hour} | {t['flaps']} | "
                   f"{t['longest_gap_s']:g} s |")
    out += ["", "A removal is the `-` lines of one service within "
            f"{REMOVAL_GROUP_S:g} s (Ciao prints one per protocol of the interface); a flap is a removal whose "
            "entries were all listed again before the end, the gap the longest an entry was missing (to the end "
            "if it never came back).", ""]
    for b, t in res["browsers"].items():
        out.append(f"## {b}")
        out.append("")
        listed = "never" if t["all_listed_after_s"] is None else f"after {t['all_listed_after_s']:g} s"
        out.append(f"- every watched service listed {listed}; entries: {len(t['entries'])} (name/protocol)")
        for what, key in (("never listed", "never_listed"), ("not listed at the end", "not_listed_at_end"),
                          ("other names seen", "other_names")):
            if t[key]:
                out.append(f"- {what}: " + ", ".join(t[key]))
        out.append(f"- packets dropped by the loss rules of its host: {t['dropped_packets']}")
        if not t["removals"]:
            out.append("- no removal")
        for r in t["removals"]:
            back = (f"back after {r['gap_s']:g} s" if r["flap"] else f"not back ({', '.join(r['missing'])}) "
                    f"after {r['gap_s']:g} s")
            still = f"; still listed on {', '.join(r['still_listed_on'])}" if r["still_listed_on"] else ""
            out.append(f"- {r['t']:.1f} s ({r['wall']}): {r['name']!r} (publisher {r['publisher']}) removed on "
                       f"{', '.join(r['protocols'])}; {back}{still}")
            if r.get("capture"):
                out += ["", "  ```"] + [f"  {line}" for line in r["capture"]] + ["  ```", ""]
        out.append("")
    out += ["## Checks", ""]
    for c in res["checks"]:
        out.append(f"- {c}")
    if res["errors"]:
        out += ["", "## Errors", ""] + [f"- `{e.splitlines()[0]}`" for e in res["errors"]]
    out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))


def save(res: dict, out: str) -> None:
    """results.json (atomically) and results.md in `out`."""
    path = os.path.join(out, "results.json")
    with open(path + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
    os.replace(path + ".tmp", path)
    write_markdown(res, os.path.join(out, "results.md"))


# ---------------------------------------------------------------------------- the run

def soak(args: argparse.Namespace, res: dict, work: str) -> None:
    """Build the lab, start publishers, querier and browsers, wait `args.minutes`, then tally
    each browser into res["browsers"] and record the end-of-run checks in res["checks"]."""
    n = args.services
    names = {"p4": [f"Avahi4 Soak {i + 1}" for i in range(n)],
             "p46": [f"Avahi46 Soak {i + 1}" for i in range(n)],
             "pc": [f"Ciao Soak {i + 1}" for i in range(n)]}
    publishers = {"p4": "avahi-daemon, use-ipv6=no", "p46": "avahi-daemon, dual-stack", "pc": "ciao publish, dual-stack"}
    if args.zeroconf_python:
        names["pz"] = [f"Zeroconf Soak {i + 1}" for i in range(n)]
        publishers["pz"] = "python-zeroconf, dual-stack"
    res["meta"]["publishers"] = publishers
    watched = {name: h for h, ns in names.items() for name in ns}
    with Lab(args.prefix, work, list(names) + list(BROWSERS.values()) + ["q"]) as lab:
        log(f"lab {args.prefix}: {len(lab.hosts)} hosts; logs in {work}")
        pub_procs: dict[str, list[JsonProc]] = {
            "p4": [start_avahi_publisher(lab, lab["p4"], names["p4"], 9400, ipv6=False)],
            "p46": [start_avahi_publisher(lab, lab["p46"], names["p46"], 9460, ipv6=True)],
            "pc": start_ciao_publishers(lab["pc"], args.ciao, names["pc"], 9500)}
        if "pz" in names:
            pub_procs["pz"] = [start_zeroconf_publisher(lab["pz"], args.zeroconf_python, names["pz"], 9600)]
        log(f"{len(watched)} services published: " + ", ".join(sorted(watched)))
        ba, bc = lab[BROWSERS["avahi"]], lab[BROWSERS["ciao"]]
        lab.start_avahi(ba)
        for h in (bc, ba):
            h.loss(args.loss)
        captures = {}
        for b, hn in BROWSERS.items():
            path = os.path.join(work, f"{hn}.pcapng")
            captures[b] = path
            cap = lab[hn].spawn("dumpcap", "dumpcap", "-q", "-i", IFNAME, "-f", "udp port 5353", "-w", path,
                                stdin=False, parse=parse_log)
            deadline = time.monotonic() + 15
            while not os.path.exists(path) and time.monotonic() < deadline and cap.proc.poll() is None:
                time.sleep(0.1)
        commands = {"ciao": ["ciao", "browse", "-p", TYPE], "avahi": ["avahi-browse", "-p", TYPE]}
        querier = Querier(lab["q"], args.query_interval)
        t_start = time.monotonic()
        epoch_offset = time.time() - t_start
        res["meta"]["soak_started"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        browsers = {"ciao": bc.spawn("ciao-browse", args.ciao, *commands["ciao"][1:],
                                     parse=parse_avahi_browse_line, stdin=False),
                    "avahi": ba.spawn("avahi-browse", *commands["avahi"], parse=parse_avahi_browse_line,
                                      stdin=False)}
        querier.start()
        for b, p in browsers.items():
            try:
                t = p.wait_all(lambda e: e.get("event") == "found" and e.get("name") in watched, len(watched), 60)
                log(f"{b}: all {len(watched)} services listed after {t - t_start:.1f} s")
            except Exception as e:                          # noqa: BLE001 — recorded, the soak goes on
                res["errors"].append(f"{b}: {e}")
                log(f"{b}: not every service listed within 60 s")
        t_stop = t_start + args.minutes * 60
        next_report = t_start + 60
        while (now := time.monotonic()) < t_stop:
            time.sleep(min(1.0, t_stop - now))
            if time.monotonic() >= next_report:
                next_report += 60
                counts = ", ".join(f"{b} {len(p.select({'event': 'removed'}))} removal lines"
                                   for b, p in browsers.items())
                log(f"{(time.monotonic() - t_start) / 60:.0f} min: {counts}; {len(querier.sent)} queries sent")
        t_end = time.monotonic()
        querier.halt.set()
        checks = res["checks"]
        for h, procs in pub_procs.items():
            dead = [p.name for p in procs if p.proc.poll() is not None]
            checks.append(f"publisher {h}: " + (f"EXITED during the run: {', '.join(dead)}" if dead else
                                                "every process still running at the end"))
        for b, p in browsers.items():
            checks.append(f"browser {b}: " + ("still running at the end" if p.proc.poll() is None else
                                              f"EXITED ({p.proc.returncode}) during the run"))
        ba_daemon = [p for p in lab.procs if p.name == f"{ba.name}.avahi-daemon"]
        if ba_daemon and ba_daemon[0].proc.poll() is not None:
            checks.append("browser avahi: its avahi-daemon EXITED during the run")
        dropped = {b: lab[hn].dropped() for b, hn in BROWSERS.items()}
        addresses = {a: h.name for h in lab.hosts.values() for a in (h.v4, h.v6, h.link_local())}
        for p in browsers.values():
            p.stop()
        querier.join(15)
        res["querier"] = {"sent": len(querier.sent), "ipv4": sum(1 for _, f in querier.sent if f == "IPv4"),
                          "ipv6": sum(1 for _, f in querier.sent if f == "IPv6"), "errors": len(querier.errors),
                          "error_lines": querier.errors[:20]}
        for b, p in browsers.items():
            t = tally(p.events, watched, t_start, t_end)
            t["command"] = " ".join(commands[b])
            t["host"] = BROWSERS[b]
            t["dropped_packets"] = dropped[b]
            t["capture"] = captures[b]
            for r in t["removals"]:
                r["wall"] = time.strftime("%H:%M:%S", time.localtime(epoch_offset + t_start + r["t"]))
            res["browsers"][b] = t
    for b, t in res["browsers"].items():
        if t["removals"]:
            packets = read_capture(t["capture"])
            for r in t["removals"]:
                r["capture"] = excerpt(packets, epoch_offset + t_start + r["t"], r["name"], addresses)


def main() -> int:
    """Parse the arguments, run the soak, write results.json and results.md; 0 unless the run
    itself failed (1) or, with --fail-on-removal, Ciao's browser reported a spurious removal (3)."""
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--ciao", required=True, help="path of the ciao executable")
    a.add_argument("--out", required=True, help="results directory")
    a.add_argument("--minutes", type=float, default=10.0)
    a.add_argument("--loss", type=int, default=5, help="percent of packets dropped on each browser host's link")
    a.add_argument("--query-interval", type=float, default=5.0, help="seconds between the querier's queries")
    a.add_argument("--services", type=int, default=3, help="services per publisher host")
    a.add_argument("--zeroconf-python", default="", help="python with zeroconf: adds the python-zeroconf publisher")
    a.add_argument("--prefix", default=f"ciaosoak{os.getpid()}")
    a.add_argument("--command", default="", help="the command line to record")
    a.add_argument("--build", default="", help="how ciao was built, to record")
    a.add_argument("--fail-on-removal", action="store_true", help="exit 3 if Ciao's browser removed a live service")
    args = a.parse_args()
    if args.minutes <= 0 or args.services < 1 or not 0 <= args.loss < 100 or args.query_interval <= 0:
        a.error("--minutes and --query-interval must be positive, --services at least 1, --loss 0..99")
    # SIGTERM (the script's timeout or trap): unwind, so the lab's namespaces are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    versions = {"ciao": first_line(args.ciao, "--version"),
                "avahi-daemon": first_line("avahi-daemon", "--version"),
                "kernel": platform.release()}
    if args.zeroconf_python:
        versions["zeroconf"] = first_line(args.zeroconf_python, "-c", "import zeroconf; print(zeroconf.__version__)")
    res: dict = {"meta": {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "command": args.command or " ".join(sys.argv),
                          "build": args.build, "ciao": args.ciao, "minutes_asked": args.minutes,
                          "loss_percent": args.loss, "loss_on": sorted(BROWSERS.values()),
                          "query_interval_s": args.query_interval, "services_per_publisher": args.services,
                          "type": TYPE, "publishers": {}, "versions": versions},
                 "browsers": {}, "querier": {"sent": 0, "errors": 0}, "checks": [], "errors": []}
    t0 = time.monotonic()
    rc = 0
    try:
        soak(args, res, work)
    except Exception as e:                                  # noqa: BLE001 — recorded in the results
        res["errors"].append(f"run: {type(e).__name__}: {e}"[:4000])
        traceback.print_exc()
        rc = 1
    finally:
        res["meta"]["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        res["meta"]["duration_s"] = round(time.monotonic() - t0, 1)
        save(res, args.out)
    for b, t in res["browsers"].items():
        log(f"{b}: {t['spurious_removals']} spurious removals ({t['removal_lines']} lines) in {t['minutes']:g} min "
            f"= {t['per_hour']} per hour, {t['flaps']} flaps, longest gap {t['longest_gap_s']:g} s")
    log(f"done in {time.monotonic() - t0:.0f} s: {args.out}/results.json, results.md")
    if rc == 0 and args.fail_on_removal and res["browsers"].get("ciao", {}).get("spurious_removals"):
        return 3
    return rc


if __name__ == "__main__":
    sys.exit(main())
