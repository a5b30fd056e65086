#!/usr/bin/env python3
"""Ciao, avahi-daemon, python-zeroconf and (when given) Apple's mDNSResponder side by side on the
wire. Run as root, through Benchmarks/wire-benchmark.sh, which installs what is missing
and builds the agent.

    bench.py --agent PATH --zeroconf-python PY [--dbus-python PY] [--mdnsresponder DIR] --out DIR
             [--prefix P] [--quick] [--only a,b,c,d,e,f,idle] [--bulk-runs N]

Everything runs in one lab of network namespaces (Tests/Interop/lab.py, imported, not copied):

    pc pa pz pm  the publishers: CiaoInteropAgent, avahi-daemon + avahi_peer.py (D-Bus), zc_peer.py,
                 mdnsd + mdns_peer.py (libdns_sd through ctypes)
    bc ba bz bm  the browsers:   CiaoInteropAgent, avahi-daemon + avahi-browse -r -p,  zc_peer.py,
                 mdnsd + mdns_peer.py
    q            the query load generator (query_load.py); before it, the idle baseline (an agent
                 in which Ciao never starts)

Without --mdnsresponder (DIR with bin/mdnsd, bin/dns-sd, lib/libdns_sd.so) there are no hosts
pm and bm, and no mDNSResponder in any table.

Each publisher stack uses its own service types, of equal length (_bnchc/_bncha/_bnchz/_bnchm for
the single services, _bulkc/_bulka/_bulkz/_bulkm for 200 and 1000), so the stacks never answer
each other's questions and every byte count covers the same names. What is measured, and how, is written
in the docstrings of the phase functions below and in the Markdown report (report.py).

Writes DIR/results.json, then DIR/results.md and DIR/latency.svg (report.py), and keeps every
process's log and every capture in DIR/work.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import random
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
INTEROP = os.path.join(HERE, "..", "..", "Tests", "Interop")
sys.path.insert(0, INTEROP)
sys.path.insert(0, HERE)
from avahi_output import parse_avahi_browse_line  # noqa: E402
from lab import IFNAME, Failure, Host, JsonProc, Lab, first_line, log, parse_log  # noqa: E402

import report  # noqa: E402

PEERS = os.path.join(INTEROP, "peers")
STACKS = ["ciao", "avahi", "zeroconf", "mdnsresponder"]   # the run's are Bench.stacks (mdnsresponder if given)
LETTER = {"ciao": "c", "avahi": "a", "zeroconf": "z", "mdnsresponder": "m"}
TYPE = {s: f"_bnch{LETTER[s]}._tcp" for s in STACKS}        # single services: (a) (b) (c), idle
BULK = {s: f"_bulk{LETTER[s]}._tcp" for s in STACKS}        # 200 / 1000 services: (d) (e) (f)
FRESH = {s: f"_frsh{LETTER[s]}._tcp" for s in STACKS}      # (g) a new publishing process per trial
# seconds from the last `published` until a stack's announcements are over: mdnsd announces four
# times, 1, 2 and 4 s apart (a fresh browser started in a gap would hear the last one unasked)
ANNOUNCED = {"ciao": 4.0, "avahi": 4.0, "zeroconf": 4.0, "mdnsresponder": 8.0}
WARM = "_bnchw._tcp"                                        # the warm-up browse nobody answers
TXT = {"v": "31", "id": "6265"}                             # v=1 id=be, the same for every stack
CLK_TCK = os.sysconf("SC_CLK_TCK")
RUNTIME_THREAD = "ciao-mdns"            # the name RuntimeLoop.run gives Ciao's own thread (comm)


# ---------------------------------------------------------------------------- /proc readings

def proc_cpu(pid: int) -> float:
    """utime + stime of the whole process (live and exited threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_threads(pid: int) -> dict[str, dict]:
    """Per live thread, from /proc/PID/task/TID: its name (comm), on-CPU seconds from schedstat
    (ns resolution) and from utime+stime in stat (clock ticks), and context switches from status
    (voluntary + involuntary: each one a wake-up)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        task = f"/proc/{pid}/task/{tid}"
        try:
            with open(f"{task}/comm") as f:
                comm = f.read().strip()
            with open(f"{task}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            n = 0
            with open(f"{task}/status") as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        n += int(line.split()[1])
        except (OSError, ValueError):
            continue
        out[tid] = {"comm": comm, "sched_s": ns / 1e9, "ticks_s": (int(fields[11]) + int(fields[12])) / CLK_TCK,
                    "switches": n}
    return out


def proc_mem(pid: int) -> dict:
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                out[line.split(":")[0]] = int(line.split()[1])
    return {"rss_kib": out.get("VmRSS"), "hwm_kib": out.get("VmHWM")}


class CPUMeter:
    """CPU used by a set of processes between start() and stop(): utime+stime of the process
    (10 ms ticks, exited threads included) and the per-thread schedstat sum (exact, live
    threads only); the figure is the schedstat one unless a thread exited meanwhile, then the
    larger of the two. Wake-ups: context switches of the threads, summed over the window.
    Each live thread's own figures (schedstat, ticks, wake-ups) are kept under "threads"."""

    def __init__(self, pids: dict[str, int]):
        self.pids = pids

    def start(self) -> "CPUMeter":
        self.t0 = time.monotonic()
        self.a = {k: (proc_cpu(p), proc_threads(p)) for k, p in self.pids.items()}
        return self

    def stop(self) -> dict:
        b = {k: (proc_cpu(p), proc_threads(p)) for k, p in self.pids.items()}
        secs = time.monotonic() - self.t0
        per = {}
        for k in self.pids:
            (c0, th0), (c1, th1) = self.a[k], b[k]
            threads = {}
            for t, v in th1.items():
                v0 = th0.get(t, {"sched_s": 0.0, "ticks_s": 0.0, "switches": 0})   # born in the window
                threads[t] = {"comm": v["comm"], "cpu_s": v["sched_s"] - v0["sched_s"],
                              "cpu_ticks_s": v["ticks_s"] - v0["ticks_s"], "wakeups": v["switches"] - v0["switches"]}
            sched = sum(v["cpu_s"] for v in threads.values())
            wake = sum(v["wakeups"] for v in threads.values())
            exited = len(set(th0) - set(th1))
            cpu = sched if not exited else max(sched, c1 - c0)
            per[k] = {"cpu_s": cpu, "cpu_ticks_s": c1 - c0, "sched_s": sched, "threads_exited": exited,
                      "wakeups": wake, "threads": threads}
        return {"seconds": secs, "cpu_s": sum(v["cpu_s"] for v in per.values()),
                "wakeups": sum(v["wakeups"] for v in per.values()), "processes": per}


# ---------------------------------------------------------------------------- the stacks

def txt_strings() -> list[str]:
    """TXT as the command-line publishers take it: "key=value" strings."""
    return [f"{k}={bytes.fromhex(v).decode()}" for k, v in TXT.items()]


AVAHI_SCRIPT = ('mount --bind "$1/avahi-run" /run/avahi-daemon && '
                'mount --bind "$1/services" /etc/avahi/services && '
                'exec avahi-daemon -f "$1/avahi-daemon.conf" --no-drop-root --no-chroot --no-rlimits --no-proc-title')


class Bench:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.out = args.out
        self.work = os.path.join(args.out, "work")
        self.results: dict = {"discovery": [], "new_service": [], "fresh_publisher": [], "removal": [], "scale": [], "loss": [],
                              "cpu_per_query": [], "idle": [], "memory": [], "withdrawal": [], "errors": []}
        self.lab: Lab | None = None
        self.last_hit: dict[str, float] = {}
        self.stacks = [s for s in STACKS if s != "mdnsresponder" or args.mdnsresponder]
        self.pub_hosts: dict[str, Host] = {}        # per stack, once the lab exists
        self.browse_hosts: dict[str, Host] = {}

    def rotated(self, rep: int) -> list[str]:
        """The stacks, starting with a different one in each repetition."""
        k = rep % len(self.stacks)
        return self.stacks[k:] + self.stacks[:k]

    # -- processes --
    def agent(self, h: Host, name: str) -> JsonProc:
        p = h.spawn(name, self.args.agent, "--interface", IFNAME)
        p.send(cmd="stats", id="ready")
        p.wait_for({"event": "stats", "id": "ready"}, 15)
        return p

    def zeroconf(self, h: Host, name: str) -> JsonProc:
        p = h.spawn(name, self.args.zeroconf_python, os.path.join(PEERS, "zc_peer.py"), "--host", f"{h.name}.local.")
        ev = p.wait_for({"event": "ready"}, 20)
        self.results["meta"]["versions"].setdefault("zeroconf", ev.get("version"))
        return p

    def avahi_client(self, h: Host, name: str) -> JsonProc:
        p = h.spawn(name, self.args.dbus_python, os.path.join(PEERS, "avahi_peer.py"))
        ev = p.wait_for({"event": "ready"}, 15)
        self.results["meta"]["versions"].setdefault("avahi-daemon (D-Bus)", ev.get("version"))
        return p

    def mdnsd(self, h: Host) -> JsonProc:
        """(Re)start mdnsd in `h` (Lab.start_mdnsd, its log in the host's mdnsd.log): a fresh,
        empty cache. Its host name is `<host>-mdns`."""
        old = getattr(h, "mdnsd_proc", None)
        if old is not None:
            old.stop(grace=5)
        h.mdnsd_proc = self.lab.start_mdnsd(h, self.args.mdnsresponder, log_file=True)
        return h.mdnsd_proc

    def mdns_client(self, h: Host, name: str) -> JsonProc:
        """mdns_peer.py against the mdnsd of `h`."""
        p = h.spawn(name, "env", f"DNSSD_UDS_PATH={h.mdns[1]}", sys.executable, os.path.join(PEERS, "mdns_peer.py"),
                    "--lib", os.path.join(self.args.mdnsresponder, "lib", "libdns_sd.so"),
                    "--host", f"{h.name}-mdns.local.")
        ev = p.wait_for({"event": "ready"}, 15)
        self.results["meta"]["versions"].setdefault("mDNSResponder client API (libdns_sd, DaemonVersion)",
                                                    ev.get("version"))
        return p

    def dns_sd_register(self, h: Host, name: str, type_: str, port: int) -> JsonProc:
        """`dns-sd -R NAME TYPE local PORT` with TXT, against the mdnsd of `h` (Lab.dns_sd)."""
        return self.lab.dns_sd(h, f"fresh-{name}", "-R", name, type_, "local", str(port), *txt_strings())

    def avahi_daemon(self, h: Host) -> JsonProc:
        """(Re)start avahi-daemon in `h` (its private D-Bus keeps running): a fresh, empty cache."""
        old = getattr(h, "avahi_proc", None)
        if old is not None:
            old.stop(grace=5)
        if getattr(h, "dbus_started", False) is False:
            self.lab.start_avahi(h)
            h.dbus_started = True
            h.avahi_proc = next(p for p in reversed(self.lab.procs) if p.name == f"{h.name}.avahi-daemon")
            return h.avahi_proc
        p = h.spawn("avahi-daemon", "unshare", "-m", "--propagation", "private", "sh", "-c", AVAHI_SCRIPT, "sh",
                    h.dir, stdin=False, parse=parse_log)
        p.wait_for(lambda e: "Server startup complete" in e.get("line", ""), 20, what="avahi startup")
        h.avahi_proc = p
        return p

    def capture(self, h: Host, path: str) -> JsonProc:
        """dumpcap on the switch port of host `h` (inside the switch namespace), mDNS only."""
        p = JsonProc(f"sw.dumpcap-{os.path.basename(path)}",
                     ["ip", "netns", "exec", self.lab.sw, "dumpcap", "-q", "-i", h.port, "-f", "udp port 5353",
                      "-w", path], self.work, parse=parse_log, stdin=False)
        self.lab.procs.append(p)
        p.wait_for(lambda e: "File:" in e.get("line", "") or "Capturing on" in e.get("line", ""), 15,
                   what="dumpcap start")
        time.sleep(0.3)
        return p

    # -- helpers --
    def record_error(self, what: str, e: BaseException) -> None:
        msg = f"{what}: {type(e).__name__}: {e}"
        log("ERROR " + msg.splitlines()[0])
        self.results["errors"].append(msg[:4000])

    def space(self, pub: str, gap: float = 1.3) -> None:
        """Keep >= `gap` s between two measurements against the same publisher (responders
        multicast a record at most once per second)."""
        last = self.last_hit.get(pub)
        if last is not None:
            left = last + gap - time.monotonic()
            if left > 0:
                time.sleep(left)

    @staticmethod
    def wait_quiet(h: Host, quiet: float = 1.5, limit: float = 30.0) -> float:
        """Wait until host `h` has sent nothing for `quiet` s (its interface's TX counter), at most
        `limit` s; returns the wait. A publisher still announcing, or still answering the last
        browser, would hand the next fresh browser its services before that browser asks."""
        start = last_change = time.monotonic()
        sent = None
        while time.monotonic() - last_change < quiet and time.monotonic() - start < limit:
            now_sent = h.run("cat", f"/sys/class/net/{IFNAME}/statistics/tx_packets").strip()
            if now_sent != sent:
                sent, last_change = now_sent, time.monotonic()
            time.sleep(0.1)
        return time.monotonic() - start

    def save(self) -> None:
        path = os.path.join(self.out, "results.json")
        with open(path + ".tmp", "w") as f:
            json.dump(self.results, f, indent=1)
        os.replace(path + ".tmp", path)


class FreshBrowser:
    """A browser with a cold cache in a warm process: Ciao and zeroconf in a new process whose
    runtime has already been started by a warm-up browse of a type nobody publishes, `settle` s
    before; avahi with a freshly started avahi-daemon (2 × `settle` s before), the browse being `avahi-browse -r -p TYPE` exec'd by a waiting
    shell when we say go; mDNSResponder with a freshly started mdnsd and a new mdns_peer.py whose
    warm-up browse went through it (2 × `settle` s before). t0 is taken just before the browse
    command is written."""

    def __init__(self, b: Bench, stack: str, h: Host, tag: str, settle: float = 1.0):
        self.b, self.stack, self.h, self.tag = b, stack, h, tag
        self.procs: dict[str, JsonProc] = {}
        if stack == "ciao":
            self.proc = b.agent(h, f"{tag}")
        elif stack == "zeroconf":
            self.proc = b.zeroconf(h, f"{tag}")
        elif stack == "mdnsresponder":
            b.mdnsd(h)
            self.proc = b.mdns_client(h, f"{tag}")
        else:
            self.proc = None
            b.avahi_daemon(h)
        if stack != "avahi":
            self.proc.send(cmd="browse", id="warm", type=WARM)
            self.proc.wait_for({"event": "browsing", "id": "warm"}, 10)
        # let the stack settle: avahi-daemon and mdnsd announce their host names after startup
        time.sleep(settle * (2 if stack in ("avahi", "mdnsresponder") else 1))

    def prepare(self, type_: str) -> None:
        """Everything before the browse itself (avahi: the waiting shell)."""
        if self.stack == "avahi":
            self.procs[type_] = self.h.spawn(f"{self.tag}-browse{type_}", "sh", "-c",
                                             'read go; exec avahi-browse -r -p "$1"', "sh", type_,
                                             parse=parse_avahi_browse_line)
            time.sleep(0.15)

    def browse(self, type_: str) -> float:
        if self.stack == "avahi":
            if type_ not in self.procs:
                self.prepare(type_)
            p = self.procs[type_]
            t0 = time.monotonic()
            p.proc.stdin.write("go\n")
            p.proc.stdin.flush()
            return t0
        t0 = time.monotonic()
        self.proc.send(cmd="browse", id=type_, type=type_)
        return t0

    def proc_for(self, type_: str) -> JsonProc:
        return self.procs[type_] if self.stack == "avahi" else self.proc

    def match(self, type_: str, event: str, name: str | None = None):
        want = {"event": event}
        if self.stack != "avahi":
            want["id"] = type_
        if name is not None:
            want["name"] = name
        return want

    def mark(self, type_: str) -> int:
        return self.proc_for(type_).mark() if (self.stack != "avahi" or type_ in self.procs) else 0

    def wait(self, type_: str, event: str, name: str, timeout: float, after: int = 0) -> float:
        return self.proc_for(type_).wait_for(self.match(type_, event, name), timeout, after=after)["t"]

    def resolved_times(self, type_: str, after: int = 0) -> dict[str, float]:
        """First resolution time of every name seen so far."""
        out: dict[str, float] = {}
        for e in self.proc_for(type_).select(self.match(type_, "resolved"), after=after):
            out.setdefault(e["name"], e["t"])
        return out

    def wait_count(self, type_: str, count: int, timeout: float, after: int = 0) -> float | None:
        p = self.proc_for(type_)
        try:
            return p.wait_all(self.match(type_, "resolved"), count, timeout, key="name", after=after)
        except Failure:
            return None

    def stop_browse(self, type_: str) -> None:
        if self.stack in ("ciao", "mdnsresponder"):
            self.proc.send(cmd="stopBrowse", id=type_)
        elif self.stack == "avahi" and type_ in self.procs:
            self.procs.pop(type_).stop()
        # zc_peer has no stopBrowse: its browser goes on with known-answer-suppressed queries

    def pids(self) -> dict[str, int]:
        """The processes whose CPU is the browser's: avahi-daemon and the avahi-browse processes;
        mdnsd and its client mdns_peer.py; the agent; zc_peer.py."""
        if self.stack == "avahi":
            out = {"avahi-daemon": self.h.avahi_proc.proc.pid}
            for t, p in self.procs.items():
                if p.proc.poll() is None:
                    out[f"avahi-browse {t}"] = p.proc.pid
            return out
        if self.stack == "mdnsresponder":
            return {"mdnsd": self.h.mdnsd_proc.proc.pid, "mdns_peer": self.proc.proc.pid}
        return {self.stack: self.proc.proc.pid}

    def memory_pids(self) -> dict[str, int]:
        """The processes whose memory is the browser's: those of `pids` but mDNSResponder's
        client, a Python interpreter standing in for an application (its RSS is Python's)."""
        return {k: v for k, v in self.pids().items() if k != "mdns_peer"}

    def close(self) -> None:
        for p in self.procs.values():
            p.stop()
        self.procs.clear()
        if self.proc is not None:
            self.proc.stop()


class Publisher:
    """One publishing process per stack for the whole run (avahi: the client of avahi-daemon;
    mDNSResponder: mdns_peer.py, the client of mdnsd)."""

    def __init__(self, b: Bench, stack: str, h: Host):
        self.b, self.stack, self.h = b, stack, h
        if stack == "ciao":
            self.proc = b.agent(h, "publisher")
        elif stack == "zeroconf":
            self.proc = b.zeroconf(h, "publisher")
        elif stack == "mdnsresponder":
            b.mdnsd(h)
            self.proc = b.mdns_client(h, "publisher")
        else:
            b.avahi_daemon(h)
            self.proc = b.avahi_client(h, "publisher")

    def responder_pid(self) -> int:
        """The process that answers the network: the daemon for avahi and mDNSResponder."""
        if self.stack == "avahi":
            return self.h.avahi_proc.proc.pid
        if self.stack == "mdnsresponder":
            return self.h.mdnsd_proc.proc.pid
        return self.proc.proc.pid

    def publish_one(self, name: str, type_: str, port: int) -> float:
        t0 = time.monotonic()
        self.proc.send(cmd="publish", id=f"{type_}/{name}", name=name, type=type_, port=port, txt=TXT, rename=False)
        return t0

    def wait_published(self, name: str, type_: str, timeout: float = 20, after: int = 0) -> float:
        return self.proc.wait_for({"event": "published", "id": f"{type_}/{name}"}, timeout, after=after)["t"]

    def unpublish(self, name: str, type_: str) -> float:
        t0 = time.monotonic()
        self.proc.send(cmd="unpublish", id=f"{type_}/{name}")
        return t0

    def publish_many(self, type_: str, first: int, count: int, timeout: float) -> float:
        """Services "Bench NNN" (first .. first+count-1), ports 20000+N; returns seconds taken."""
        m = self.proc.mark()
        t0 = time.monotonic()
        if self.stack == "avahi":
            # avahi_peer names a batch "<name> 000".. itself: one batch per call, from 000
            assert first == 0
            self.proc.send(cmd="publish", id=f"{type_}/batch", name="Bench", type=type_, port=20000, txt=TXT,
                           count=count)
            self.proc.wait_for({"event": "published", "id": f"{type_}/batch"}, timeout, after=m)
        else:
            for i in range(first, first + count):
                self.proc.send(cmd="publish", id=f"{type_}/Bench {i:03d}", name=f"Bench {i:03d}", type=type_,
                               port=20000 + i, txt=TXT, rename=False)
            self.proc.wait_all(lambda e: e.get("event") == "published" and e.get("id", "").startswith(type_ + "/"),
                               count, timeout, key="id", after=m)
        return time.monotonic() - t0

    def close(self) -> None:
        self.proc.stop(grace=10)


# ---------------------------------------------------------------------------- phases

def phase_discovery(b: Bench, pubs: dict[str, Publisher], reps: int) -> None:
    """(a) Existing service: each publisher has had "Existing Svc" published for > 4 s. Per
    repetition, per browser stack (order rotated), one FreshBrowser browses the publishers' types
    one after the other (a type that process has never seen); latency = browse command -> first
    resolution of "Existing Svc" (Ciao, zeroconf, mDNSResponder: the `resolved` event; avahi: the
    first `=` line). >= 1.3 s between two measurements against the same publisher."""
    log(f"(a) discovery of an existing service, {reps} repetitions")
    samples = {(p, s): [] for p in b.stacks for s in b.stacks}
    for rep in range(reps):
        for bs in b.rotated(rep):
            try:
                fb = FreshBrowser(b, bs, b.browse_hosts[bs], f"a-{bs}-{rep}")
            except Exception as e:                      # noqa: BLE001
                b.record_error(f"(a) start {bs} browser", e)
                continue
            try:
                for ps in b.rotated(rep):
                    b.space(ps)
                    fb.prepare(TYPE[ps])
                    t0 = fb.browse(TYPE[ps])
                    try:
                        t = fb.wait(TYPE[ps], "resolved", "Existing Svc", 10)
                        samples[(ps, bs)].append(t - t0)
                    except Failure as e:
                        b.record_error(f"(a) {ps} -> {bs} rep {rep}", e)
                    b.last_hit[ps] = time.monotonic()
                    fb.stop_browse(TYPE[ps])
            finally:
                fb.close()
        log("  rep %d: %s" % (rep, ", ".join(f"{p[0]}>{s[0]} {v[-1]*1e3:.0f}" for (p, s), v in samples.items() if v)))
    for (p, s), v in samples.items():
        b.results["discovery"].append({"publisher": p, "browser": s, "samples": v})
    b.save()


def phase_new_and_removal(b: Bench, pubs: dict[str, Publisher], reps: int, idle_secs: float) -> None:
    """(b) and (c): the browsers (a Ciao agent, a zeroconf peer, avahi-browse -r -p per type, an
    mdns_peer.py) browse all the publishers' types for the whole phase. Per repetition and
    publisher: publish "New NN" (t0 = the publish command) -> each browser's first resolution;
    1.5 s later unpublish (t0 = the unpublish command, goodbyes) -> each browser's `removed` /
    `-` line. Then the idle
    measurement (CPU while idle) runs with these browsers and the "Existing Svc" publishers, and
    with an agent started beside the browsers in which Ciao never starts (its baseline)."""
    log(f"(b)/(c) new service and removal, {reps} repetitions")
    browsers = {}
    for bs in b.stacks:
        fb = FreshBrowser(b, bs, b.browse_hosts[bs], f"bc-{bs}")
        for ps in b.stacks:
            fb.browse(TYPE[ps])
        browsers[bs] = fb
    # the idle baseline (phase_idle), as old as the browsers; host q is otherwise unused until (f)
    baseline = b.agent(b.lab["q"], "idle-baseline") if "idle" in b.args.only else None
    time.sleep(3)
    new = {(p, s): [] for p in b.stacks for s in b.stacks}
    gone = {(p, s): [] for p in b.stacks for s in b.stacks}
    try:
        for rep in range(reps):
            for ps in b.stacks:
                name = f"New {rep:02d}"
                ty = TYPE[ps]

                def each_browser(act, event: str, timeout: float, samples: dict, what: str) -> None:
                    """Does `act` (returning its start time) and adds to `samples` how long each
                    browser took to report `event` for the service."""
                    marks = {bs: fb.mark(ty) for bs, fb in browsers.items()}
                    t0 = act()
                    for bs, fb in browsers.items():
                        try:
                            samples[(ps, bs)].append(fb.wait(ty, event, name, timeout, after=marks[bs]) - t0)
                        except Failure as e:
                            b.record_error(f"{what} {ps} -> {bs} rep {rep}", e)

                each_browser(lambda: pubs[ps].publish_one(name, ty, 9000 + rep), "resolved", 10, new, "(b)")
                time.sleep(1.5)
                each_browser(lambda: pubs[ps].unpublish(name, ty), "removed", 15, gone, "(c)")
                time.sleep(0.5)
            log("  rep %d: new %s | removal %s" % (
                rep, " ".join(f"{p[0]}>{s[0]} {v[-1]:.2f}" for (p, s), v in new.items() if v),
                " ".join(f"{p[0]}>{s[0]} {v[-1]:.2f}" for (p, s), v in gone.items() if v)))
        for (p, s) in new:
            b.results["new_service"].append({"publisher": p, "browser": s, "samples": new[(p, s)]})
            b.results["removal"].append({"publisher": p, "browser": s, "samples": gone[(p, s)]})
        b.save()
        if "idle" in b.args.only:
            phase_idle(b, pubs, browsers, baseline, idle_secs)
    finally:
        for fb in browsers.values():
            fb.close()
        if baseline is not None:
            baseline.stop()


def spawn_fresh_publisher(b: Bench, stack: str, h: Host, name: str, port: int) -> tuple[JsonProc, float]:
    """A new process publishing one service of FRESH[stack] at once: the agent and zc_peer.py get
    their publish command as soon as they are spawned; avahi is `avahi-publish-service` against
    the warm avahi-daemon of `h`, mDNSResponder `dns-sd -R` against the warm mdnsd of `h`.
    Returns the process and t0, taken just before the spawn."""
    ty = FRESH[stack]
    t0 = time.monotonic()
    if stack == "avahi":
        p = h.spawn(f"fresh-{name}", "avahi-publish-service", name, ty, str(port), *txt_strings(), stdin=False,
                    parse=parse_log)
        return p, t0
    if stack == "mdnsresponder":
        return b.dns_sd_register(h, name, ty, port), t0
    if stack == "ciao":
        p = h.spawn(f"fresh-{name}", b.args.agent, "--interface", IFNAME)
    else:
        p = h.spawn(f"fresh-{name}", b.args.zeroconf_python, os.path.join(PEERS, "zc_peer.py"), "--host",
                    f"{h.name}.local.")
    p.send(cmd="publish", id=name, name=name, type=ty, port=port, txt=TXT, rename=False)
    return p, t0


def phase_fresh(b: Bench, reps: int) -> None:
    """(g) A new process per trial publishing one service, as a program run from a shell: Ciao's
    agent and zc_peer.py started and told to publish at once, avahi's `avahi-publish-service`
    and mDNSResponder's `dns-sd -R` against their warm daemons. Every lab namespace but mdnsd's
    keeps the machine's host name, and the Ciao browser only browses. The long-running
    publishers have left; the browsers browse all the FRESH types for the whole phase. Latency =
    spawn -> each browser's first resolution of "Fresh NN"; the process is then stopped (SIGTERM,
    goodbyes) and its removal awaited."""
    log(f"(g) a new publishing process per trial, {reps} repetitions")
    browsers = {}
    samples = {(p, s): [] for p in b.stacks for s in b.stacks}
    try:
        for bs in b.stacks:
            fb = FreshBrowser(b, bs, b.browse_hosts[bs], f"g-{bs}")
            for ps in b.stacks:
                fb.browse(FRESH[ps])
            browsers[bs] = fb
        time.sleep(3)
        for rep in range(reps):
            for ps in b.rotated(rep):
                name = f"Fresh {rep:02d}"
                ty = FRESH[ps]
                marks = {bs: fb.mark(ty) for bs, fb in browsers.items()}
                proc, t0 = spawn_fresh_publisher(b, ps, b.pub_hosts[ps], name, 9100 + rep)
                try:
                    for bs, fb in browsers.items():
                        try:
                            samples[(ps, bs)].append(fb.wait(ty, "resolved", name, 10, after=marks[bs]) - t0)
                        except Failure as e:
                            b.record_error(f"(g) {ps} -> {bs} rep {rep}", e)
                    marks = {bs: fb.mark(ty) for bs, fb in browsers.items()}
                finally:
                    proc.stop(grace=5)
                for bs, fb in browsers.items():
                    try:
                        fb.wait(ty, "removed", name, 15, after=marks[bs])
                    except Failure as e:
                        b.record_error(f"(g) removal {ps} -> {bs} rep {rep}", e)
                time.sleep(0.5)
            log("  rep %d: %s" % (rep, " ".join(f"{p[0]}>{s[0]} {v[-1]:.2f}" for (p, s), v in samples.items() if v)))
        for (p, s), v in samples.items():
            b.results["fresh_publisher"].append({"publisher": p, "browser": s, "samples": v})
        b.save()
    finally:
        for fb in browsers.values():
            fb.close()


def runtime_thread(r: dict) -> dict | None:
    """Ciao's own thread (found by its name) in a CPUMeter result: its CPU and wake-ups."""
    for p in r["processes"].values():
        for tid, t in p["threads"].items():
            if t["comm"] == RUNTIME_THREAD:
                return {"tid": tid, **t}
    return None


def phase_idle(b: Bench, pubs: dict[str, Publisher], browsers: dict[str, FreshBrowser], baseline: JsonProc | None,
               secs: float) -> None:
    """CPU while idle: each publisher with its one "Existing Svc", the browsers browsing all the
    types (started > 30 s before), all on one link, nothing published or withdrawn: CPU time and
    thread wake-ups (context switches) of each responder (the daemon for avahi and mDNSResponder)
    and browser (FreshBrowser.pids) over `secs` s, per process and per thread
    (/proc/PID/task/TID). For Ciao, also its own thread (named ciao-mdns) alone,
    and in the same window the baseline: the same agent, started with the browsers and sent only
    `stats` (answered by the agent itself), so that Swift concurrency and Dispatch run in it but
    Ciao's runtime never starts."""
    log(f"idle CPU over {secs:.0f} s")
    # libdispatch's worker threads exit 5 s after their last work item (the agents' last events):
    # a thread exiting inside the window would leave only utime+stime, counted in 10 ms ticks
    time.sleep(10)
    meters = {}
    for s in b.stacks:
        meters[(s, "publisher")] = CPUMeter({s: pubs[s].responder_pid()})
        meters[(s, "browser")] = CPUMeter(browsers[s].pids())
    if baseline is not None:
        meters[("ciao", "baseline")] = CPUMeter({"ciao": baseline.proc.pid})
    for m in meters.values():
        m.start()
    time.sleep(secs)
    for (s, role), m in meters.items():
        r = m.stop()
        r.update(stack=s, role=role)
        line = f"  {s} {role}: {r['cpu_s']*1e3:.1f} ms CPU, {r['wakeups']} wake-ups in {r['seconds']:.0f} s"
        if s == "ciao":
            rt = r["runtime_thread"] = runtime_thread(r)
            if rt is not None:
                line += f"; {RUNTIME_THREAD} thread {rt['cpu_s']*1e3:.1f} ms, {rt['wakeups']} wake-ups"
            if (rt is None) != (role == "baseline"):
                b.record_error(f"idle {s} {role}", Failure(f"thread {RUNTIME_THREAD} "
                                                           + ("missing" if rt is None else "running in the baseline")))
        b.results["idle"].append(r)
        log(line)
    b.save()


def analyse_capture(path: str, t_from: float, t_to: float, addresses: set[str]) -> dict:
    """Packets and bytes (Ethernet frame lengths) in [t_from, t_to] (epoch seconds) from or to
    the two hosts of the measurement, split into queries and responses."""
    r = subprocess.run(["tshark", "-r", path, "-n", "-T", "fields", "-E", "separator=|",
                        "-e", "frame.time_epoch", "-e", "frame.len", "-e", "ip.src", "-e", "ipv6.src",
                        "-e", "dns.flags.response"], capture_output=True, text=True)
    out = {"packets": 0, "bytes": 0, "queries": 0, "query_bytes": 0, "responses": 0, "response_bytes": 0,
           "ipv4_packets": 0, "ipv6_packets": 0}
    for line in r.stdout.splitlines():
        f = line.split("|")
        if len(f) < 5 or not f[0]:
            continue
        t, n = float(f[0]), int(f[1])
        src = f[2] or f[3]
        if not (t_from <= t <= t_to) or src not in addresses:
            continue
        out["packets"] += 1
        out["bytes"] += n
        out["ipv4_packets" if f[2] else "ipv6_packets"] += 1
        if f[4] in ("1", "True"):
            out["responses"] += 1
            out["response_bytes"] += n
        else:
            out["queries"] += 1
            out["query_bytes"] += n
    return out


def measure_bulk(b: Bench, ps: str, bs: str, count: int, timeout: float, capture: bool, loss: int = 0,
                 run: int = 0) -> dict:
    """One fresh browser of the bulk type of publisher `ps`: time until `count` distinct services
    are resolved, the packets and bytes on the wire meanwhile, the browser's memory at the end;
    with `loss`, drop that percentage of packets both ways on the browser's link (nftables).
    `run` numbers the repetitions of one cell (its browser's name and capture file say it)."""
    h, ph = b.browse_hosts[bs], b.pub_hosts[ps]
    ty = BULK[ps]
    b.space(ps, 2.0)
    # before the browser starts: its stack caches whatever it hears from then on, asked or not
    quiet_wait = b.wait_quiet(ph)
    fb = FreshBrowser(b, bs, h, f"{'e' if loss else 'd'}{count}-{ps[0]}{bs[0]}{loss or ''}-{run + 1}")
    res: dict = {"publisher": ps, "browser": bs, "count": count, "run": run,
                 "publisher_quiet_wait_s": round(quiet_wait, 2)}
    cap = None
    try:
        fb.prepare(ty)
        pcap = os.path.join(b.work, f"{'loss' + str(loss) if loss else 'scale'}-{count}-{ps}-{bs}-{run + 1}.pcapng")
        if capture:
            cap = b.capture(h, pcap)
        if loss:
            h.loss(loss)
        # what the browsing processes held before: a process started for this browse (avahi-browse,
        # waiting in its shell) counts whole afterwards
        before = [proc_mem(pid) for k, pid in fb.memory_pids().items() if not k.startswith("avahi-browse")]
        res["browser_rss_before_kib"] = sum(m["rss_kib"] or 0 for m in before)
        offset = time.time() - time.monotonic()
        t0 = fb.browse(ty)
        t_all = fb.wait_count(ty, count, timeout)
        end = time.monotonic()
        times = sorted(t - t0 for t in fb.resolved_times(ty).values())
        res.update(time_s=(t_all - t0) if t_all else None, resolved=len(times), waited_s=end - t0)
        if loss:
            res.update(loss=loss, within10=sum(x <= 10 for x in times) / count,
                       within30=sum(x <= 30 for x in times) / count, dropped=h.dropped())
            h.loss(0)
        mem = {k: proc_mem(pid) for k, pid in fb.memory_pids().items()}
        res["browser_memory"] = mem
        res["browser_rss_kib"] = sum(m["rss_kib"] or 0 for m in mem.values())
        res["browser_hwm_kib"] = sum(m["hwm_kib"] or 0 for m in mem.values())
        if cap is not None:
            time.sleep(0.5)
            cap.stop()
            addrs = {h.v4, h.v6, h.link_local(), ph.v4, ph.v6, ph.link_local()}
            t_to = (t_all if t_all else end) + offset
            res["wire"] = analyse_capture(pcap, t0 + offset - 0.001, t_to + 0.001, addrs)
            res["pcap"] = os.path.relpath(pcap, b.out)
    finally:
        if loss:
            h.loss(0)
        if cap is not None:
            cap.stop()
        fb.close()
        b.last_hit[ps] = time.monotonic()
    return res


def phase_bulk(b: Bench, pubs: dict[str, Publisher]) -> None:
    """(d) 200 and 1000 services, (e) 200 services under 10 % and 30 % loss, (f) responder CPU per
    1000 queries and memory with 1000 services published, publisher stack by publisher stack.
    Each (d) and (e) cell is measured --bulk-runs times, a round of every cell before the next."""
    quick = b.quick
    runs = b.args.bulk_runs
    counts = [200] if quick else [200, 1000]
    scale_browsers = {"ciao": ["ciao", "avahi", "zeroconf", "mdnsresponder"],
                      "avahi": ["avahi", "ciao", "zeroconf", "mdnsresponder"],
                      "zeroconf": ["zeroconf", "ciao", "avahi"], "mdnsresponder": ["mdnsresponder", "ciao", "avahi"]}
    if quick:
        scale_browsers = {"ciao": ["ciao"], "avahi": ["avahi", "ciao"], "zeroconf": ["zeroconf", "ciao"],
                          "mdnsresponder": ["mdnsresponder", "ciao"]}
    loss_browsers = {"ciao": ["ciao"], "avahi": ["avahi", "ciao", "zeroconf", "mdnsresponder"],
                     "zeroconf": ["zeroconf", "ciao"], "mdnsresponder": ["mdnsresponder", "ciao"]}
    if quick:
        loss_browsers = {s: [s] for s in STACKS}
    losses = [30] if quick else [10, 30]
    loss_timeout = 10 if quick else 30
    for ps in b.stacks:
        pub = pubs[ps]
        published = 0
        rss_before = proc_mem(pub.responder_pid())["rss_kib"]   # with the few services of (a)-(c)
        for count in counts:
            if not {"d", "e", "f"} & set(b.args.only):
                break
            try:
                if ps == "avahi" and published:
                    # avahi_peer numbers each batch from 000: withdraw the first batch, publish anew
                    pub.proc.send(cmd="unpublish", id=f"{BULK[ps]}/batch")
                    pub.proc.wait_for({"event": "unpublished", "id": f"{BULK[ps]}/batch"}, 30)
                    time.sleep(2)
                    took = pub.publish_many(BULK[ps], 0, count, timeout=300)
                else:
                    took = pub.publish_many(BULK[ps], published, count - published, timeout=300)
                log(f"{ps}: published {count - (0 if ps == 'avahi' else published)} more services "
                    f"(now {count}) in {took:.1f} s")
                published = count
            except Failure as e:
                b.record_error(f"{ps} publishing {count}", e)
                break
            time.sleep(ANNOUNCED[ps])                      # announcements over
            if "d" in b.args.only:
                for run, bs in itertools.product(range(runs), [s for s in scale_browsers[ps] if s in b.stacks]):
                    try:
                        r = measure_bulk(b, ps, bs, count, timeout=(30 if quick else 90), capture=True, run=run)
                        b.results["scale"].append(r)
                        w = r.get("wire", {})
                        log(f"  (d) {count} {ps} -> {bs}, run {run + 1}: "
                            f"{'%.2f s' % r['time_s'] if r['time_s'] else 'only %d resolved' % r['resolved']}, "
                            f"{w.get('packets')} packets, {w.get('bytes')} bytes, browser RSS {r['browser_rss_kib']} KiB")
                    except Exception as e:                  # noqa: BLE001
                        b.record_error(f"(d) {count} {ps} -> {bs}, run {run + 1}", e)
                    b.save()
            if count == 200 and "e" in b.args.only:
                for run, bs, pct in itertools.product(range(runs), [s for s in loss_browsers[ps] if s in b.stacks],
                                                      losses):
                    try:
                        r = measure_bulk(b, ps, bs, 200, timeout=loss_timeout, capture=False, loss=pct, run=run)
                        b.results["loss"].append(r)
                        log(f"  (e) {pct}% {ps} -> {bs}, run {run + 1}: {r['within10']:.1%} within 10 s, "
                            f"{r.get('within30', 0):.1%} within 30 s"
                            + (f", all in {r['time_s']:.1f} s" if r["time_s"] else ""))
                    except Exception as e:                  # noqa: BLE001
                        b.record_error(f"(e) {pct}% {ps} -> {bs}, run {run + 1}", e)
                    b.save()
        if published and "f" in b.args.only:
            try:
                b.results["memory"].append({"stack": ps, "role": "publisher", "services": published,
                                            "rss_before_kib": rss_before, **proc_mem(pub.responder_pid())})
                phase_cpu_per_query(b, ps, pub, published)
            except Exception as e:                          # noqa: BLE001
                b.record_error(f"(f) {ps}", e)
            b.save()
        if published and "c" in b.args.only:
            try:
                measure_withdrawal(b, ps, pub, published)
            except Exception as e:                          # noqa: BLE001
                b.record_error(f"(c) withdrawal {ps}", e)
            b.save()


def measure_withdrawal(b: Bench, ps: str, pub: Publisher, published: int) -> None:
    """(c) at scale: the publisher leaves with its `published` services (and "Existing Svc")
    still up. Ciao: the process exits (`exit`, exit(0)) and its exit hook withdraws everything;
    avahi: the D-Bus client owning the entry groups quits and the daemon withdraws them;
    zeroconf: `quit` unpublishes everything, as close() does; mDNSResponder: mdns_peer.py quits,
    closing its connection, and mdnsd withdraws the registrations made on it. Captured on the publisher's switch
    port: goodbye packets (responses whose records all have TTL 0) from the publisher, their bytes,
    the services said goodbye to (PTR records of the bulk type), and when the last goodbye left,
    from the command. The publisher is gone afterwards."""
    h = b.pub_hosts[ps]
    b.space(ps, 2.0)
    pcap = os.path.join(b.work, f"withdrawal-{published}-{ps}.pcapng")
    cap = b.capture(h, pcap)
    time.sleep(1)
    offset = time.time() - time.monotonic()
    t0 = time.monotonic()
    pub.proc.send(cmd="exit" if ps == "ciao" else "quit")
    code = pub.proc.wait_exit(30)
    exited = time.monotonic() - t0 if code is not None else None
    time.sleep(3)
    cap.stop()
    r = subprocess.run(["tshark", "-r", pcap, "-n", "-T", "fields", "-E", "separator=|", "-e", "frame.time_epoch",
                        "-e", "frame.len", "-e", "ip.src", "-e", "ipv6.src", "-e", "dns.flags.response",
                        "-e", "dns.resp.ttl", "-e", "dns.ptr.domain_name"], capture_output=True, text=True)
    addresses = {h.v4, h.v6, h.link_local()}
    res = {"stack": ps, "services": published, "exit_s": exited, "packets": 0, "bytes": 0,
           "ipv4_packets": 0, "ipv6_packets": 0, "last_s": None, "pcap": os.path.relpath(pcap, b.out)}
    said: set[str] = set()
    for line in r.stdout.splitlines():
        f = line.split("|")
        if len(f) < 7 or not f[0] or (f[2] or f[3]) not in addresses or f[4] not in ("1", "True"):
            continue
        ttls = [t for t in f[5].split(",") if t]
        t = float(f[0]) - offset - t0
        if not ttls or any(ttl != "0" for ttl in ttls) or t < 0:
            continue
        res["packets"] += 1
        res["bytes"] += int(f[1])
        res["ipv4_packets" if f[2] else "ipv6_packets"] += 1
        res["last_s"] = max(res["last_s"] or 0.0, t)
        said.update(n for n in f[6].split(",") if n.endswith("." + BULK[ps] + ".local"))
    res["services_said_goodbye"] = len(said)
    b.results["withdrawal"].append(res)
    log(f"  (c) {ps} leaves with {published} services: {res['packets']} goodbye packets, {res['bytes']} bytes, "
        f"{len(said)} services, last after {res['last_s']}")


def phase_cpu_per_query(b: Bench, ps: str, pub: Publisher, published: int) -> None:
    """(f) The load generator in host q asks for the SRV record of "Bench NNN" (distinct names in
    turn, QM, from port 5353) at a fixed rate; responder CPU (utime+stime, or schedstat when no
    thread exited) between the first query and the last answer, per 1000 queries answered. Three
    rounds (one with --quick), each 12 s of load; the figure is the median round, since a single
    round moves by ±15 % with the machine's other work."""
    q = b.lab["q"]
    n = 1000 if b.quick else 6000
    rate = min(500.0, published / 1.4)
    rounds = []
    for i in range(1 if b.quick else 3):
        b.space(ps, 2.0)
        time.sleep(1)
        meter = CPUMeter({ps: pub.responder_pid()}).start()
        gen = q.spawn(f"load-{ps}-{i}", "python3", os.path.join(HERE, "query_load.py"), "--src", q.v4,
                      "--type", BULK[ps], "--count", str(published), "--queries", str(n), "--rate", f"{rate:g}",
                      stdin=False)
        done = gen.wait_for({"event": "done"}, n / rate + 60)
        r = meter.stop()
        answered = done["answered"]
        rounds.append({"stack": ps, "services": published, "queries": done["sent"], "answered": answered,
                       "rate": rate, "seconds": r["seconds"], "cpu_s": r["cpu_s"], "detail": r["processes"][ps],
                       "per_1000_ms": (r["cpu_s"] / answered * 1e6) if answered else None,
                       "latency_ms": done["latency_ms"]})
        per = f"{rounds[-1]['per_1000_ms']:.1f}" if rounds[-1]["per_1000_ms"] else "-"
        log(f"  (f) {ps} round {i + 1}: {answered}/{done['sent']} answered, {r['cpu_s']*1e3:.0f} ms CPU -> {per} ms per 1000")
        b.last_hit[ps] = time.monotonic()
    ranked = sorted(rounds, key=lambda x: x["per_1000_ms"] if x["per_1000_ms"] is not None else float("inf"))
    res = dict(ranked[len(ranked) // 2])
    res["rounds_per_1000_ms"] = [x["per_1000_ms"] for x in rounds]
    b.results["cpu_per_query"].append(res)


# ---------------------------------------------------------------------------- machine and versions


def top_processes(n: int = 8) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,pcpu,etime,comm", "--sort=-pcpu"], capture_output=True, text=True).stdout
    return [l.strip() for l in out.splitlines()[1:n + 1]]


class LoadSampler(threading.Thread):
    """Samples the machine's load average and CPU use every 5 s for the run's record."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples: list[dict] = []
        self.halt = threading.Event()

    @staticmethod
    def cpu() -> tuple[int, int]:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]

    def run(self) -> None:
        prev = self.cpu()
        while not self.halt.wait(5):
            cur = self.cpu()
            busy = 1 - (cur[1] - prev[1]) / max(1, cur[0] - prev[0])
            prev = cur
            self.samples.append({"t": time.time(), "load1": os.getloadavg()[0], "busy": round(busy, 3)})


def mdnsresponder_version(args) -> str:
    """The mDNSResponder of the run: its source version (--mdnsresponder-version) and the build
    stamp its mdnsd carries (the Posix build's "mDNSResponder (Engineering Build) (date)")."""
    with open(os.path.join(args.mdnsresponder, "bin", "mdnsd"), "rb") as f:
        m = re.search(rb"@\(#\) (mDNSResponder[^\x00]*)", f.read())
    stamp = m.group(1).decode("ascii", "replace").strip() if m else "no build stamp"
    return f"{args.mdnsresponder_version or 'source version not given'} (mdnsd: {stamp}; {args.mdnsresponder})"


def machine(args) -> dict:
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    os_name = "?"
    if os.path.exists("/etc/os-release"):
        with open("/etc/os-release") as f:
            m = re.search(r'PRETTY_NAME="([^"]+)"', f.read())
            os_name = m.group(1) if m else "?"
    return {
        "cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(), "os": os_name,
        "virtualisation": first_line("systemd-detect-virt") if os.path.exists("/usr/bin/systemd-detect-virt") else "?",
        "versions": {"swift": args.swift_version or first_line("swift", "--version"),
                     "avahi-daemon": first_line("avahi-daemon", "--version").replace("Running as", "").strip(),
                     "python (zeroconf)": first_line(args.zeroconf_python, "--version"),
                     "tshark": first_line("tshark", "--version"),
                     **({"mDNSResponder": mdnsresponder_version(args)} if args.mdnsresponder else {})},
    }


# ---------------------------------------------------------------------------- main

def main() -> int:
    a = argparse.ArgumentParser()
    a.add_argument("--agent", required=True)
    a.add_argument("--zeroconf-python", required=True)
    a.add_argument("--dbus-python", default="/usr/bin/python3")
    a.add_argument("--mdnsresponder", default="",
                   help="Apple's mDNSResponder built for Linux (bin/mdnsd, bin/dns-sd, lib/libdns_sd.so); "
                        "without it its column is left out")
    a.add_argument("--mdnsresponder-version", default="", help="its source version, to record")
    a.add_argument("--out", required=True)
    a.add_argument("--prefix", default=f"ciaobench{os.getpid()}")
    a.add_argument("--quick", action="store_true")
    a.add_argument("--only", default="a,b,c,d,e,f,g,idle")
    a.add_argument("--bulk-runs", type=int, default=None,
                   help="how many times each (d) and (e) cell is measured (3; 1 with --quick)")
    a.add_argument("--command", default="", help="the command line to record")
    a.add_argument("--build", default="", help="how the agent was built, to record")
    a.add_argument("--swift-version", default="")
    args = a.parse_args()
    args.only = set(args.only.split(","))
    if args.bulk_runs is None:
        args.bulk_runs = 1 if args.quick else 3
    if args.bulk_runs < 1:
        a.error("--bulk-runs must be at least 1")
    if args.mdnsresponder and not all(os.path.exists(os.path.join(args.mdnsresponder, f))
                                      for f in ("bin/mdnsd", "bin/dns-sd", "lib/libdns_sd.so")):
        a.error(f"--mdnsresponder {args.mdnsresponder}: no bin/mdnsd, bin/dns-sd and lib/libdns_sd.so there")
    # SIGTERM (the script's timeout or trap): unwind, so the lab's namespaces are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.makedirs(args.out, exist_ok=True)
    b = Bench(args)
    os.makedirs(b.work, exist_ok=True)
    os.chmod(b.work, 0o755)
    reps_a = 3 if args.quick else 15
    reps_bc = 2 if args.quick else 10
    idle = 10.0 if args.quick else 60.0
    b.results["meta"] = {"started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "quick": args.quick,
                         "command": args.command, "build": args.build, "agent": args.agent,
                         "repetitions": {"discovery": reps_a, "new_and_removal": reps_bc, "fresh": reps_bc,
                                         "bulk": args.bulk_runs},
                         "idle_seconds": idle, "stacks": b.stacks,
                         "load_before": os.getloadavg(), "top_before": top_processes(), **machine(args)}
    sampler = LoadSampler()
    sampler.start()
    t_start = time.monotonic()
    rc = 0
    pubs: dict[str, Publisher] = {}
    try:
        random.seed(6)
        if not args.mdnsresponder:
            log("mDNSResponder not given (--mdnsresponder / CIAO_MDNSRESPONDER): its column is left out")
        hosts = [f"p{LETTER[s]}" for s in b.stacks] + [f"b{LETTER[s]}" for s in b.stacks] + ["q"]
        with Lab(args.prefix, b.work, hosts) as lab:
            b.lab = lab
            b.pub_hosts = {s: lab[f"p{LETTER[s]}"] for s in b.stacks}
            b.browse_hosts = {s: lab[f"b{LETTER[s]}"] for s in b.stacks}
            log(f"lab {args.prefix}: {len(hosts)} hosts ({', '.join(b.stacks)}); logs in {b.work}")
            b.avahi_daemon(lab["ba"])
            for s in b.stacks:
                pubs[s] = Publisher(b, s, b.pub_hosts[s])
            marks = {s: pubs[s].proc.mark() for s in b.stacks}
            for s in b.stacks:
                pubs[s].publish_one("Existing Svc", TYPE[s], 8000)
            for s in b.stacks:
                pubs[s].wait_published("Existing Svc", TYPE[s], 20, after=marks[s])
            time.sleep(max(ANNOUNCED[s] for s in b.stacks))
            if "a" in args.only:
                phase_discovery(b, pubs, reps_a)
            if {"b", "c", "idle"} & args.only:
                phase_new_and_removal(b, pubs, reps_bc, idle)
            phase_bulk(b, pubs)
            for p in pubs.values():
                p.close()
            if "g" in args.only:
                phase_fresh(b, reps_bc)
    except Exception as e:                                  # noqa: BLE001
        b.record_error("run", e)
        traceback.print_exc()
        rc = 1
    finally:
        sampler.halt.set()
        m = b.results["meta"]
        m["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        m["duration_s"] = round(time.monotonic() - t_start, 1)
        m["load_after"] = os.getloadavg()
        m["top_after"] = top_processes()
        m["load_samples"] = sampler.samples
        if sampler.samples:
            m["load_summary"] = {"load1_max": max(s["load1"] for s in sampler.samples),
                                 "busy_mean": round(statistics.mean(s["busy"] for s in sampler.samples), 3)}
        b.save()
    report.write(args.out)
    log(f"done in {time.monotonic() - t_start:.0f} s: {args.out}/results.json, results.md, latency.svg"
        + (f"; {len(b.results['errors'])} errors (see results.json)" if b.results["errors"] else ""))
    return rc


if __name__ == "__main__":
    sys.exit(main())
