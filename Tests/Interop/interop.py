#!/usr/bin/env python3
"""Ciao's interop suite: the CiaoInteropAgent (and the `ciao` tool) against avahi-daemon and
python-zeroconf on a private network of namespaces (see lab.py). Run through Scripts/interop.sh,
as root.

    interop.py --agent PATH [--ciao PATH] --zeroconf-python PY [--dbus-python PY] [--prefix P]
               [--workdir D] [SCENARIO ...]

Each scenario builds its own lab, drives the agent and the peers, and prints one line:
"PASS name: figures" or "FAIL name: what went wrong" (followed by the processes' recent
output). Every wait is bounded. The closing line is "N passed, M failed"; the exit status is
1 if any scenario failed.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dnsmsg  # noqa: E402
from avahi_output import avahi_unescape, parse_avahi_browse_line  # noqa: E402
from lab import HERE, IFNAME, V6NET, Failure, Host, JsonProc, Lab, show_txt  # noqa: E402
from runner import Skip, parse_scenario_arguments, run_scenarios  # noqa: E402
from pane import Pane  # noqa: E402

PEERS = os.path.join(HERE, "peers")
TYPE = "_ciaotest._tcp"
TXT = {"k": "v".encode().hex(), "empty": "", "flag": None, "bin": "00ff80"}
TXT2 = {"k": "v2".encode().hex(), "new": None, "bin": "ff00"}
NAME_CONFLICT = -65548


# ---------------------------------------------------------------------------- the run's context

class Suite:
    """Paths and options of the run; makes labs and starts the agent and peers in them."""

    def __init__(self, args):
        self.agent_path = args.agent
        self.ciao_path = args.ciao
        self.chat_path = getattr(args, "chat", "")
        self.demo_path = getattr(args, "demo", "")
        self.mdns_dir = getattr(args, "mdnsresponder", "")
        self.zc_python = args.zeroconf_python
        self.dbus_python = args.dbus_python
        self.prefix = args.prefix
        self.workdir = args.workdir
        self.labs = 0
        self.agents: list[JsonProc] = []

    def lab(self, scenario: str, hosts: list[str]) -> Lab:
        self.labs += 1
        return Lab(f"{self.prefix}-{self.labs}", os.path.join(self.workdir, scenario), hosts)

    def agent(self, host: Host, name: str = "agent") -> JsonProc:
        p = host.spawn(name, self.agent_path)
        self.agents.append(p)
        return p

    def ciao(self, host: Host, name: str, *args: str) -> JsonProc:
        """A running `ciao ARGS` in `host`; its avahi-browse -p lines are parsed into events."""
        if not self.ciao_path:
            raise Failure("no ciao executable (pass --ciao PATH)")
        return host.spawn(name, self.ciao_path, *args, parse=parse_avahi_browse_line, stdin=False)

    def ciao_once(self, host: Host, name: str, *args: str, timeout: float = 20) -> tuple[JsonProc, int, float]:
        """Run `ciao ARGS` in `host` to its end: (process with its lines, exit status, seconds taken)."""
        t0 = time.monotonic()
        p = self.ciao(host, name, *args)
        rc = p.wait_exit(timeout)
        took = time.monotonic() - t0
        p.stop()                                     # joins the reader: p.lines is complete
        if rc is None:
            raise Failure(f"{p.name}: did not exit within {timeout:g} s\n{p.tail()}")
        return p, rc, took

    def zeroconf(self, host: Host, name: str = "zeroconf") -> JsonProc:
        p = host.spawn(name, self.zc_python, os.path.join(PEERS, "zc_peer.py"),
                       "--host", f"{host.name}-zc.local.")
        p.wait_for({"event": "ready"}, 15)
        return p

    def avahi_client(self, host: Host, name: str = "avahi-client") -> JsonProc:
        p = host.spawn(name, self.dbus_python, os.path.join(PEERS, "avahi_peer.py"))
        p.wait_for({"event": "ready"}, 10)
        return p


def avahi_browse(host: Host, *args: str, name: str = "avahi-browse") -> JsonProc:
    """A running `avahi-browse -p ARGS` in `host`, its lines parsed into events."""
    return host.spawn(name, "avahi-browse", "-p", *args, parse=parse_avahi_browse_line, stdin=False)


def avahi_browse_once(host: Host, *args: str) -> list[dict]:
    """The events of one `avahi-browse -p -t ARGS` run (bounded to 15 s)."""
    out = host.run("timeout", "15", "avahi-browse", "-p", "-t", *args, timeout=20)
    return [e for e in map(parse_avahi_browse_line, out.splitlines()) if e]


# ---------------------------------------------------------------------------- checks

def same_host(a: str, b: str) -> bool:
    return a.rstrip(".").lower() == b.rstrip(".").lower()


def host_addresses(h: Host) -> set[str]:
    """The addresses `h` has on the lab link: its IPv6 ones only while IPv6 is on there."""
    link_local = h.link_local()
    return {h.v4, h.v6, link_local} if link_local else {h.v4}


def plain(addr: str) -> str:
    """An address without its %zone, normalised."""
    return str(ipaddress.ip_address(addr.split("%")[0]))


def resolution_problems(ev: dict, host: str, port: int, txt: dict, owner: Host,
                        required: tuple[str, ...] = ("v4", "v6")) -> list[str]:
    """What is wrong with a `resolved` event (agent or zeroconf form) for a service of `owner`."""
    p = []
    if not same_host(ev.get("host", ""), host):
        p.append(f"host {ev.get('host')!r} != {host!r}")
    if ev.get("port") != port:
        p.append(f"port {ev.get('port')} != {port}")
    if ev.get("txt") != txt:
        p.append(f"TXT {show_txt(ev.get('txt'))} != {show_txt(txt)}")
    got = {plain(a) for a in ev.get("addresses", [])}
    for fam in required:
        if plain(getattr(owner, fam)) not in got:
            p.append(f"address {getattr(owner, fam)} missing from {sorted(got)}")
    stray = got - {plain(a) for a in host_addresses(owner)}
    if stray:
        p.append(f"addresses not of {owner.name}: {sorted(stray)}")
    return p


def wait_resolved(proc: JsonProc, name: str, host: str, port: int, txt: dict, owner: Host,
                  timeout: float, after: int = 0, id_: str | None = None,
                  required: tuple[str, ...] = ("v4", "v6")) -> dict:
    """The first `resolved` event for `name` with everything right; on timeout say what was wrong."""
    def good(e):
        return (e.get("event") == "resolved" and e.get("name") == name and (id_ is None or e.get("id") == id_)
                and not resolution_problems(e, host, port, txt, owner, required))
    good.__doc__ = f"correct resolution of {name!r}"
    try:
        return proc.wait_for(good, timeout, after=after)
    except Failure as f:
        seen = proc.select({"event": "resolved", "name": name}, after=after)
        why = "; ".join(resolution_problems(seen[-1], host, port, txt, owner, required)) if seen else "never resolved"
        raise Failure(f"{proc.name}: {name!r} not resolved correctly within {timeout:g} s: {why}\n{f}") from None


def publish(agent: JsonProc, id_: str, name: str, port: int = 8080, txt: dict | None = None,
            type_: str = TYPE, timeout: float = 20, **extra) -> dict:
    """Send a publish command to the agent (or a peer) and return its published/publishFailed event."""
    mark = agent.mark()
    agent.send(cmd="publish", id=id_, name=name, type=type_, port=port, txt=TXT if txt is None else txt, **extra)
    return agent.wait_for(lambda e: e.get("id") == id_ and e.get("event") in
                          ("published", "publishFailed", "collision", "failure", "error"),
                          timeout, after=mark, what=f"outcome of publish {id_} ({name!r})")


def expect_published(agent: JsonProc, id_: str, name: str, **kw) -> dict:
    ev = publish(agent, id_, name, **kw)
    if ev["event"] != "published":
        raise Failure(f"{agent.name}: publishing {name!r} failed: {ev}")
    return ev


def publishing_peers(s: Suite, lab: Lab, av: Host, zch: Host, avahi_name: str,
                     zeroconf_name: str) -> tuple[JsonProc, JsonProc]:
    """avahi-daemon on `av` publishing `avahi_name` on port 9000 and python-zeroconf on `zch`
    publishing `zeroconf_name` on port 9001, both with TXT; returns the two peers' processes."""
    lab.start_avahi(av)
    ap = s.avahi_client(av)
    zc = s.zeroconf(zch)
    expect_published(ap, "a", avahi_name, port=9000)
    expect_published(zc, "z", zeroconf_name, port=9001)
    return ap, zc


def quit_agent(agent: JsonProc, timeout: float = 10) -> float:
    """Send quit; wait for bye and the exit. Returns the time quit was sent."""
    t = time.monotonic()
    agent.send(cmd="quit")
    agent.wait_for({"event": "bye"}, timeout, what="bye after quit")
    if agent.wait_exit(5) != 0:
        raise Failure(f"{agent.name}: exit status {agent.proc.returncode} after quit\n{agent.tail()}")
    return t


# ---------------------------------------------------------------------------- scenarios

SCENARIOS: dict[str, tuple] = {}


def scenario(name: str, summary: str):
    def register(fn):
        SCENARIOS[name] = (fn, summary)
        return fn
    return register


@scenario("ciao-publishes", "avahi and python-zeroconf resolve, update and lose Ciao's service")
def ciao_publishes(s: Suite) -> list[str]:
    """Ciao publishes "Ciao Interop Ü" with a binary TXT; avahi-browse (host av) and a
    python-zeroconf browser (host zb) resolve it exactly, see a TXT update, and see it go
    within 2 s of the agent quitting."""
    name = "Ciao Interop Ü"
    with s.lab("ciao-publishes", ["c1", "av", "zb"]) as lab:
        c1, av = lab["c1"], lab["av"]
        lab.start_avahi(av)
        ab = avahi_browse(av, "-r", TYPE)
        zb = s.zeroconf(lab["zb"])
        zb.send(cmd="browse", id="b", type=TYPE)
        agent = s.agent(c1)
        t0 = time.monotonic()
        pub = expect_published(agent, "p1", name, txt=TXT)
        if pub["name"] != name:
            raise Failure(f"published as {pub['name']!r}, not {name!r}")
        host = pub["host"]

        zr = wait_resolved(zb, name, host, 8080, TXT, c1, 10)
        ar = ab.wait_for(lambda e: e["event"] == "resolved" and e["name"] == name, 10,
                         what=f"avahi-browse resolution of {name!r}")
        avahi_view = [e for e in avahi_browse_once(av, "-r", TYPE) if e["event"] == "resolved" and e["name"] == name]
        v6 = av.run("timeout", "10", "avahi-resolve-host-name", "-6", host.rstrip("."), timeout=15, check=False).split()
        problems = []
        for e in avahi_view or [ar]:
            if not same_host(e["host"], host) or e["port"] != 8080 or e["txt"] != TXT:
                problems.append(f"avahi-browse saw host {e['host']} port {e['port']} TXT {show_txt(e['txt'])}")
        avahi_addrs = {plain(e["address"]) for e in avahi_view} | ({plain(v6[1])} if len(v6) > 1 else set())
        if c1.v4 not in avahi_addrs:
            problems.append(f"avahi has no {c1.v4} among {sorted(avahi_addrs)}")
        if not any(ipaddress.ip_address(a).version == 6 for a in avahi_addrs):
            problems.append(f"avahi resolves {host} to no IPv6 address ({' '.join(v6) or 'nothing'})")
        if avahi_addrs - {plain(a) for a in host_addresses(c1)}:
            problems.append(f"avahi has addresses not of c1: {sorted(avahi_addrs)}")
        if problems:
            raise Failure("; ".join(problems) + "\n" + ab.tail())

        mark_z = zb.mark()
        t1 = time.monotonic()
        agent.send(cmd="updateTXT", id="p1", txt=TXT2)
        agent.wait_for({"event": "txtUpdated", "id": "p1"}, 10)
        zu = wait_resolved(zb, name, host, 8080, TXT2, c1, 10, after=mark_z)
        au = None
        while au is None and time.monotonic() - t1 < 10:
            seen = [e for e in avahi_browse_once(av, "-r", TYPE) if e["event"] == "resolved" and e["name"] == name]
            if seen and all(e["txt"] == TXT2 for e in seen):
                au = time.monotonic()
        if au is None:
            raise Failure(f"avahi-browse never showed the new TXT {show_txt(TXT2)}: last {seen}")

        mark_z, mark_a = zb.mark(), ab.mark()
        tq = quit_agent(agent)
        zgone = zb.wait_for({"event": "removed", "name": name}, 2, after=mark_z, what="removal (zeroconf)")
        found = {(e["interface"], e["protocol"]) for e in ab.select({"event": "found", "name": name})}
        agone = ab.wait_all({"event": "removed", "name": name}, len(found), 2, key="protocol", after=mark_a)
        return [f"avahi resolved {ar['t'] - t0:.2f} s and zeroconf {zr['t'] - t0:.2f} s after publish",
                f"TXT update seen by zeroconf {zu['t'] - t1:.2f} s, avahi {au - t1:.2f} s",
                f"removal seen by zeroconf {zgone['t'] - tq:.2f} s, avahi {agone - tq:.2f} s after quit"]


@scenario("peers-publish", "Ciao browses and resolves avahi's and python-zeroconf's services")
def peers_publish(s: Suite) -> list[str]:
    """avahi (D-Bus, binary TXT) and python-zeroconf publish; the agent finds and resolves
    both exactly, sees their TXT updates and their removal."""
    with s.lab("peers-publish", ["c1", "av", "zc"]) as lab:
        c1, av, zch = lab["c1"], lab["av"], lab["zc"]
        ap, zc = publishing_peers(s, lab, av, zch, "Avahi Peer Ü", "Zeroconf Peer Ü")
        # (instance name, peer process, its publish id, owner host, SRV host, port)
        peers = [("Avahi Peer Ü", ap, "a", av, f"{av.name}-avahi.local.", 9000),
                 ("Zeroconf Peer Ü", zc, "z", zch, f"{zch.name}-zc.local.", 9001)]
        agent = s.agent(c1)
        t0 = time.monotonic()
        agent.send(cmd="browse", id="b", type=TYPE)
        figures = []
        for name, _, _, owner, host, port in peers:
            r = wait_resolved(agent, name, host, port, TXT, owner, 10, id_="b")
            figures.append(f"{name.split()[0]} resolved {r['t'] - t0:.2f} s")
        for name, peer, pid, owner, host, port in peers:
            mark = agent.mark()
            t1 = time.monotonic()
            peer.send(cmd="updateTXT", id=pid, txt=TXT2)
            r = wait_resolved(agent, name, host, port, TXT2, owner, 10, after=mark, id_="b")
            figures.append(f"{name.split()[0]} TXT update {r['t'] - t1:.2f} s")
        for name, peer, pid, *_ in peers:
            mark = agent.mark()
            t1 = time.monotonic()
            peer.send(cmd="unpublish", id=pid)
            r = agent.wait_for({"event": "removed", "name": name, "id": "b"}, 5, after=mark)
            figures.append(f"{name.split()[0]} removal {r['t'] - t1:.2f} s")
        return figures


@scenario("conflicts", "name conflicts with avahi and python-zeroconf end with one owner")
def conflicts(s: Suite) -> list[str]:
    """A peer owns a name: Ciao renames to "X (2)", or fails with -65548 when renaming is off.
    Ciao owns a name: avahi-publish-service and python-zeroconf are the ones that give way."""
    with s.lab("conflicts", ["c1", "av", "zc"]) as lab:
        c1, av = lab["c1"], lab["av"]
        lab.start_avahi(av)
        ap = s.avahi_client(av)
        zc = s.zeroconf(lab["zc"])
        agent = s.agent(c1)
        figures = []
        for owner, peer, name in (("avahi", ap, "Conflict Avahi"), ("zeroconf", zc, "Conflict Zeroconf")):
            expect_published(peer, "own", name, port=9000)
            t0 = time.monotonic()
            ev = publish(agent, f"{owner}-rename", name)
            if ev["event"] != "published" or ev["name"] != f"{name} (2)":
                raise Failure(f"owner {owner}: expected published as {name + ' (2)'!r}, got {ev}")
            t1 = time.monotonic()
            ev = publish(agent, f"{owner}-strict", name, rename=False)
            if ev["event"] != "publishFailed" or ev.get("code") != NAME_CONFLICT:
                raise Failure(f"owner {owner}: expected publishFailed {NAME_CONFLICT} with rename false, got {ev}")
            figures.append(f"vs {owner}: renamed in {t1 - t0:.2f} s, strict failure in {time.monotonic() - t1:.2f} s")

        owned = "Owned By Ciao"
        host = expect_published(agent, "own", owned)["host"]
        mark = agent.mark()
        aps = av.spawn("avahi-publish-service", "avahi-publish-service", owned, TYPE, "9100",
                       parse=lambda l: {"event": "line", "line": l}, stdin=False)
        est = aps.wait_for(lambda e: "Established under name" in e.get("line", ""), 15,
                           what="avahi-publish-service establishing")
        avahi_name = est["line"].split("'")[1]
        if avahi_name == owned:
            raise Failure(f"avahi-publish-service established {owned!r} although Ciao owns it\n{aps.tail()}")
        ev = publish(zc, "strict", owned, port=9101)
        if ev["event"] != "publishFailed":
            raise Failure(f"zeroconf registered {owned!r} although Ciao owns it: {ev}")
        zc_name = expect_published(zc, "renamed", owned, port=9102, rename=True)["name"]
        if zc_name == owned:
            raise Failure(f"zeroconf with allow_name_change kept {owned!r}")
        zc.send(cmd="resolve", id="r", name=owned, type=TYPE, timeout=5)
        r = zc.wait_for(lambda e: e.get("id") == "r" and e["event"] in ("resolved", "resolveFailed"), 10)
        if r["event"] != "resolved" or not same_host(r["host"], host) or r["port"] != 8080:
            raise Failure(f"{owned!r} no longer resolves to Ciao ({host}:8080): {r}")
        later = [e for e in agent.select(lambda e: e.get("id") == "own", after=mark)]
        if later:
            raise Failure(f"the agent reported more about {owned!r} after the peers tried it: {later}")
        figures.append(f"Ciao kept {owned!r}; avahi took {avahi_name!r}, zeroconf {zc_name!r}")
        return figures


@scenario("types", "service type enumeration both ways")
def types(s: Suite) -> list[str]:
    """The agent's types session lists _zctype._tcp (zeroconf) and _avtype._tcp (avahi);
    `avahi-browse -a` lists the agent's _ciaotype._tcp service."""
    with s.lab("types", ["c1", "av", "zc"]) as lab:
        c1, av = lab["c1"], lab["av"]
        lab.start_avahi(av)
        ap = s.avahi_client(av)
        zc = s.zeroconf(lab["zc"])
        expect_published(ap, "a", "Type Avahi", type_="_avtype._tcp", port=9000)
        expect_published(zc, "z", "Type Zeroconf", type_="_zctype._tcp", port=9001)
        agent = s.agent(c1)
        expect_published(agent, "p", "Type Ciao", type_="_ciaotype._tcp")
        t0 = time.monotonic()
        agent.send(cmd="types", id="t")
        t_types = agent.wait_all(lambda e: e.get("event") == "type" and e.get("type") in ("_avtype._tcp", "_zctype._tcp"),
                                 2, 10, key="type")
        agent.send(cmd="stopTypes", id="t")
        t1 = time.monotonic()
        while True:
            seen = avahi_browse_once(av, "-a")
            if any(e["event"] == "found" and e["type"] == "_ciaotype._tcp" and e["name"] == "Type Ciao" for e in seen):
                break
            if time.monotonic() - t1 > 10:
                raise Failure(f"avahi-browse -a never listed Type Ciao._ciaotype._tcp: {seen}")
        return [f"agent listed both peer types in {t_types - t0:.2f} s",
                f"avahi-browse -a listed Ciao's in {time.monotonic() - t1:.2f} s"]


@scenario("same-host", "Ciao and avahi-daemon share one host and port 5353")
def same_host_scenario(s: Suite) -> list[str]:
    """avahi-daemon and the agent both run in host sh (both bound to 5353); a zeroconf browser
    elsewhere sees both services, the agent sees avahi's, and avahi sees the agent's."""
    with s.lab("same-host", ["sh", "zb"]) as lab:
        sh_ = lab["sh"]
        lab.start_avahi(sh_)
        ap = s.avahi_client(sh_)
        expect_published(ap, "a", "Same Host Avahi", port=9000)
        agent = s.agent(sh_)
        host = expect_published(agent, "p", "Same Host Ciao")["host"]
        zb = s.zeroconf(lab["zb"])
        t0 = time.monotonic()
        zb.send(cmd="browse", id="b", type=TYPE)
        agent.send(cmd="browse", id="b", type=TYPE)
        r1 = wait_resolved(zb, "Same Host Ciao", host, 8080, TXT, sh_, 10)
        r2 = wait_resolved(zb, "Same Host Avahi", f"{sh_.name}-avahi.local.", 9000, TXT, sh_, 10)
        r3 = wait_resolved(agent, "Same Host Avahi", f"{sh_.name}-avahi.local.", 9000, TXT, sh_, 10, id_="b")
        t1 = time.monotonic()
        while True:
            seen = [e for e in avahi_browse_once(sh_, "-r", TYPE) if e["event"] == "resolved" and e["name"] == "Same Host Ciao"]
            if seen and all(same_host(e["host"], host) and e["port"] == 8080 and e["txt"] == TXT for e in seen):
                break
            if time.monotonic() - t1 > 10:
                raise Failure(f"avahi-browse on the same host never resolved Same Host Ciao correctly: {seen}")
        return [f"zeroconf resolved Ciao's {r1['t'] - t0:.2f} s and avahi's {r2['t'] - t0:.2f} s",
                f"agent resolved avahi's {r3['t'] - t0:.2f} s", f"avahi-browse resolved Ciao's {time.monotonic() - t1:.2f} s"]


@scenario("avahi-started-after-ciao", "avahi-daemon started after Ciao on one host takes no reply meant for Ciao")
def avahi_started_after_ciao(s: Suite) -> list[str]:
    """The agent runs in host sh before avahi-daemon starts there (as when avahi restarts), so
    avahi binds port 5353 last and Linux hands it every unicast datagram sent to the port. Having
    heard avahi, the agent resolves python-zeroconf's and another Ciao's services on host pz with
    queries that ask for multicast replies (no QU bit, as a sniffer on host obs sees them), and the
    answers reach it: either peer would unicast a reply to a QU question, and avahi be handed it."""
    with s.lab("avahi-started-after-ciao", ["sh", "pz", "obs"]) as lab:
        sh_, pz, obs = lab["sh"], lab["pz"], lab["obs"]
        expect_published(s.zeroconf(pz), "z", "Remote Zeroconf", port=9000)
        ciao_host = expect_published(s.agent(pz, "remote-agent"), "c", "Remote Ciao", port=9001)["host"]
        time.sleep(4)                                  # their announcements are over
        agent = s.agent(sh_)
        agent.send(cmd="browse", id="o", type="_other._tcp")   # the runtime starts, caching nothing of pz's
        time.sleep(1)
        lab.start_avahi(sh_)
        time.sleep(3)
        sn = sniffer(s, obs)
        figures = []
        for name, host, port in (("Remote Zeroconf", f"{pz.name}-zc.local.", 9000), ("Remote Ciao", ciao_host, 9001)):
            mark = agent.mark()
            t0 = time.monotonic()
            agent.send(cmd="resolve", id=name, name=name, type=TYPE, timeout=5)
            ra = agent.wait_for(lambda e: e.get("id") == name and e["event"] in ("resolved", "resolveFailed"), 10,
                                after=mark)
            if ra["event"] != "resolved" or resolution_problems(ra, host, port, TXT, pz):
                raise Failure(f"the agent cannot resolve {name!r} on pz: {ra}")
            figures.append(f"{time.monotonic() - t0:.2f} s")
        sources = {plain(a) for a in host_addresses(sh_) if a}
        questions = []
        for e in sn.select({"event": "packet"}):
            m = dnsmsg.parse(bytes.fromhex(e["message"]))
            if plain(e["from"]) in sources and not m["flags"] & 0x8000 and not m["authority"]:
                questions += [q for q in m["questions"] if dnsmsg.show_name(q[0]).startswith("Remote ")]
        if not questions:
            raise Failure("the sniffer on obs saw no query from sh for the services on pz")
        qu = [dnsmsg.show_name(n) for n, _, c in questions if c & 0x8000]
        if qu:
            raise Failure(f"after hearing avahi on its host, the agent still asked for unicast replies: {qu} "
                          f"(resolved in {' and '.join(figures)})")
        return [f"the agent resolved zeroconf's and Ciao's services on pz in {' and '.join(figures)}, "
                f"with {len(questions)} questions, none QU"]


# ---------------------------------------------------------------------------- the machine's host name

# Every lab namespace shares the machine's host name, as processes on one real host do.
MACHINE = socket.gethostname().split(".")[0]
MACHINE_LOCAL = f"{MACHINE}.local"


def sniffer(s: Suite, host: Host) -> JsonProc:
    p = host.spawn("sniff", s.zc_python, os.path.join(PEERS, "sniff.py"), "--interface", "civ0")
    p.wait_for({"event": "ready"}, 10)
    return p


def host_name_traffic(sn: JsonProc, sender: Host, name: str = MACHINE_LOCAL) -> list[str]:
    """What `sender` sent, as the sniffer saw it, that probes, announces or says goodbye for a
    host name (`name` and its `-N` renames) or for anything: every response, every probe."""
    sources = {plain(a) for a in host_addresses(sender) if a}
    base = name.rstrip(".").lower().split(".")[0]
    found = []
    for e in sn.select({"event": "packet"}):
        if plain(e["from"]) not in sources:
            continue
        m = dnsmsg.parse(bytes.fromhex(e["message"]))
        names = [dnsmsg.show_name(q[0]) for q in m["questions"]]
        names += [dnsmsg.show_name(r["name"]) for sec in ("answers", "authority", "additional") for r in m[sec]]
        is_response = bool(m["flags"] & 0x8000)
        if is_response or m["authority"]:
            found.append(f"{'response' if is_response else 'probe'} naming {sorted(set(names))}")
        elif any(n.lower().split(".")[0].rsplit("-", 1)[0] == base and n.lower().endswith(".local.") for n in names):
            found.append(f"query for {sorted(set(names))}")
    return found


def avahi_conflicts(daemon: JsonProc) -> list[str]:
    return [e["line"] for e in daemon.select(lambda e: "conflict" in e.get("line", "").lower())]


def ciao_published(p: JsonProc, name: str, timeout: float = 20) -> dict:
    return p.wait_for(lambda e: e.get("event") == "published" and e.get("name") == name, timeout,
                      what=f"published event for {name!r}")


@scenario("host-name-beside-avahi", "Ciao beside an avahi-daemon that owns the machine's host name")
def host_name_beside_avahi(s: Suite) -> list[str]:
    """avahi-daemon in host sh uses the machine's own host name, as on every desktop. `ciao
    browse`, `types`, `resolve` and one then two `ciao publish` processes in sh leave it
    unchanged (no conflict in its log); from host peer `avahi-resolve -n` still answers and the
    services resolve to that name with sh's addresses, also after the publishers exit."""
    with s.lab("host-name-beside-avahi", ["sh", "peer"]) as lab:
        sh_, peer = lab["sh"], lab["peer"]
        daemon = lab.start_avahi(sh_, host_name=MACHINE)
        lab.start_avahi(peer)
        figures = []
        for args in (("browse", "-t", "_http._tcp"), ("types", "-t"), ("resolve", "Nope", "_http._tcp", "--timeout", "1")):
            s.ciao_once(sh_, f"ciao-{args[0]}", *args)
        one = s.ciao(sh_, "ciao-publish-one", "publish", "--json", "Host One", TYPE, "8081", "k=v")
        two = s.ciao(sh_, "ciao-publish-two", "publish", "--json", "Host Two", TYPE, "8082", "k=v")
        s.agents += [one, two]
        t0 = time.monotonic()
        hosts = [ciao_published(p, n)["host"] for p, n in ((one, "Host One"), (two, "Host Two"))]
        figures.append(f"both published in {time.monotonic() - t0:.2f} s")
        if any(not same_host(h, MACHINE_LOCAL) for h in hosts):
            raise Failure(f"the publishers use host names {hosts}, not avahi's {MACHINE_LOCAL}")
        time.sleep(2)
        want = {plain(sh_.v4), plain(sh_.v6)}
        out = peer.run("timeout", "10", "avahi-resolve", "-n", MACHINE_LOCAL, check=False).split()
        if len(out) < 2 or plain(out[1]) not in want:
            raise Failure(f"avahi-resolve -n {MACHINE_LOCAL} on peer: {out} (expected one of {sorted(want)})")
        deadline = time.monotonic() + 10
        while True:
            seen = [e for e in avahi_browse_once(peer, "-r", TYPE) if e["event"] == "resolved"]
            good = {e["name"] for e in seen if same_host(e["host"], MACHINE_LOCAL) and plain(e["address"]) in want}
            if {"Host One", "Host Two"} <= good:
                break
            if time.monotonic() > deadline:
                raise Failure(f"avahi-browse -r on peer: {seen}")
            time.sleep(0.5)
        figures.append(f"avahi-resolve -n and avahi-browse -r on peer see {MACHINE_LOCAL} at {sh_.v4}")
        # The services' addresses come from avahi-daemon, which sends A records over IPv4 alone:
        # `ciao browse -r -p` asks for them over IPv6 too, as avahi-browse does, and prints the
        # same lines, an IPv6 resolved line per service included.
        deadline = time.monotonic() + 15
        while True:
            cb, rc, _ = s.ciao_once(peer, "ciao-browse-p", "browse", "-r", "-p", "-t", TYPE)
            ciao_lines = sorted(l for l in cb.lines if l[:2] in ("+;", "=;"))
            out = peer.run("timeout", "15", "avahi-browse", "-r", "-p", "-t", TYPE, timeout=20)
            avahi_lines = sorted(l for l in out.splitlines() if l[:2] in ("+;", "=;"))
            if (ciao_lines == avahi_lines and len(ciao_lines) == 8) or time.monotonic() > deadline:
                break
            time.sleep(1)
        if ciao_lines != avahi_lines or len(ciao_lines) != 8:
            diff = ([f"    only ciao  | {l}" for l in ciao_lines if l not in avahi_lines]
                    + [f"    only avahi | {l}" for l in avahi_lines if l not in ciao_lines])
            raise Failure(f"ciao browse -r -p -t and avahi-browse on peer: {len(ciao_lines)} lines "
                          "(expected 8: + and = over both protocols for both services)\n" + "\n".join(diff))
        figures.append("ciao browse -r -p -t on peer: the same 8 lines as avahi-browse, an IPv6 resolved line each")
        for p in (one, two):
            p.proc.send_signal(signal.SIGINT)
            if p.wait_exit(5) != 0:
                raise Failure(f"{p.name} exited with {p.proc.returncode} after SIGINT\n{p.tail()}")
        time.sleep(3)
        out = peer.run("timeout", "10", "avahi-resolve", "-n", MACHINE_LOCAL, check=False).split()
        if len(out) < 2 or plain(out[1]) not in want:
            raise Failure(f"after the publishers exited, avahi-resolve -n {MACHINE_LOCAL}: {out}")
        if avahi_conflicts(daemon):
            raise Failure("avahi-daemon on sh logged: " + " | ".join(avahi_conflicts(daemon)))
        figures.append(f"avahi's host name unchanged ({MACHINE_LOCAL}), no conflict in its log, still resolved after exit")
        return figures


@scenario("deprecated-address", "a deprecated IPv6 address is not published, so avahi started later keeps the host name")
def deprecated_address(s: Suite) -> list[str]:
    """Host c has, beside its own addresses, an IPv6 address whose preferred lifetime has ended
    (as a day-old temporary address of IPv6 privacy extensions is). `ciao publish` there owns the
    machine's host name; avahi-daemon then starts in c with that name, as after an upgrade on a
    desktop: it keeps the name (no conflict in its log), and from host peer the name's IPv6
    address is c's own, never the deprecated one, while `ciao resolve` there lists no
    deprecated address either."""
    with s.lab("deprecated-address", ["c", "peer"]) as lab:
        c, peer = lab["c"], lab["peer"]
        lab.start_avahi(peer)
        deprecated = f"{V6NET}:{0x100 + c.num:x}"
        c.run("ip", "-6", "addr", "add", f"{deprecated}/64", "dev", IFNAME, "preferred_lft", "0", "nodad")
        publisher = s.ciao(c, "ciao-publish", "publish", "--json", "Kept Name", TYPE, "8090")
        s.agents.append(publisher)
        host = ciao_published(publisher, "Kept Name")["host"]
        if not same_host(host, MACHINE_LOCAL):
            raise Failure(f"ciao publish took {host}, not the machine's {MACHINE_LOCAL}")
        time.sleep(1)
        daemon = lab.start_avahi(c, host_name=MACHINE)
        time.sleep(6)
        problems = []
        if avahi_conflicts(daemon):
            problems.append("avahi-daemon logged: " + " | ".join(avahi_conflicts(daemon)))
        out = peer.run("timeout", "10", "avahi-resolve", "-6", "-n", MACHINE_LOCAL, check=False).split()
        if len(out) < 2 or plain(out[1]) != plain(c.v6):
            problems.append(f"avahi-resolve -6 -n {MACHINE_LOCAL} on peer: {out} (expected {c.v6})")
        r, rc, _ = s.ciao_once(peer, "ciao-resolve", "resolve", "--json", "Kept Name", TYPE, "--timeout", "5")
        addresses = [a for e in r.events if e.get("event") == "resolved" for a in e.get("addresses", [])]
        if rc != 0 or plain(c.v6) not in map(plain, addresses) or plain(deprecated) in map(plain, addresses):
            problems.append(f"ciao resolve on peer: exit {rc}, addresses {addresses} (want {c.v6}, not {deprecated})")
        if problems:
            raise Failure("; ".join(problems))
        return [f"avahi-daemon started beside Ciao keeps {MACHINE_LOCAL} (no conflict); avahi-resolve -6 gives "
                f"{c.v6}; ciao resolve lists {sorted(addresses)}, not {deprecated}"]


@scenario("host-name-owned", "Ciao owns the machine's host name: shared by two processes, mapped back, never taken by a browser")
def host_name_owned(s: Suite) -> list[str]:
    """No avahi in host c. A browse-only `ciao` (browse, types, resolve) sends no probe,
    announcement or goodbye (a capture on host obs). Two `ciao publish` processes at once share
    the machine's host name; from host q `avahi-resolve -a` and nss-mdns's `getent hosts` map each
    of c's addresses back to it. `-i eth9` is a bad argument naming the interfaces that exist; in a
    namespace with only loopback `resolve` fails saying no interface was found, and `publish` waits
    for one and publishes once it comes."""
    with s.lab("host-name-owned", ["c", "q", "obs", "lonely"]) as lab:
        c, q, obs, lonely = lab["c"], lab["q"], lab["obs"], lab["lonely"]
        lab.disconnect(lonely)
        lab.start_avahi(q)
        sn = sniffer(s, obs)
        figures = []
        for args in (("browse", "-t", "_http._tcp"), ("types", "-t"), ("resolve", "Nope", "_http._tcp", "--timeout", "1")):
            s.ciao_once(c, f"ciao-{args[0]}", *args)
        time.sleep(1)
        queries = [e for e in sn.select({"event": "packet"}) if plain(e["from"]) in {plain(c.v4), plain(c.v6)}]
        sent = host_name_traffic(sn, c)
        if not queries or sent:
            raise Failure(f"browse-only ciao: {len(queries)} packets captured; host-name traffic: {sent}")
        figures.append(f"browse-only: {len(queries)} queries captured, no probe, announcement or goodbye")

        one = s.ciao(c, "ciao-publish-one", "publish", "--json", "Owned One", TYPE, "8081")
        two = s.ciao(c, "ciao-publish-two", "publish", "--json", "Owned Two", TYPE, "8082")
        s.agents += [one, two]
        hosts = [ciao_published(p, n)["host"] for p, n in ((one, "Owned One"), (two, "Owned Two"))]
        if any(not same_host(h, MACHINE_LOCAL) for h in hosts):
            raise Failure(f"two publishers on one host use {hosts}, not both {MACHINE_LOCAL}")
        figures.append(f"two publishers share {MACHINE_LOCAL}")
        time.sleep(1)
        for address in (c.v4, c.v6):
            out = q.run("timeout", "10", "avahi-resolve", "-a", address, check=False).split()
            if len(out) < 2 or not same_host(out[1], MACHINE_LOCAL):
                raise Failure(f"avahi-resolve -a {address} on q: {out}")
            r = lab.nss_run(q, "getent", "hosts", address, timeout=20)
            if r.returncode != 0 or MACHINE_LOCAL not in r.stdout.split():
                raise Failure(f"getent hosts {address} (nss-mdns) on q: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
        figures.append("avahi-resolve -a and getent hosts map both addresses back")
        seen = [e for e in avahi_browse_once(q, "-r", TYPE) if e["event"] == "resolved"]
        good = {e["name"] for e in seen if same_host(e["host"], MACHINE_LOCAL) and plain(e["address"]) in {plain(c.v4), plain(c.v6)}}
        if not {"Owned One", "Owned Two"} <= good:
            raise Failure(f"avahi-browse -r on q: {seen}")
        for flag, want in (("-4", {plain(c.v4)}), ("-6", {plain(c.v6), plain(c.link_local())})):
            p, rc, _ = s.ciao_once(q, f"ciao-resolve{flag}", "resolve", flag, "Owned One", TYPE, "--json")
            r = next(iter(p.select({"event": "resolved"})), None)
            got = {plain(a) for a in (r or {}).get("addresses", [])}
            if rc != 0 or not got or not got <= want:
                raise Failure(f"ciao resolve {flag}: exit {rc}, addresses {sorted(got)} (expected within {sorted(want)})")
        figures.append("resolve -4 / -6 print the addresses of that family only")

        p, rc, _ = s.ciao_once(c, "ciao-eth9", "publish", "-i", "eth9", "X", TYPE, "80")
        text = "\n".join(p.lines)
        if rc != 2 or "eth9" not in text or "civ0" not in text:
            raise Failure(f"ciao publish -i eth9: exit {rc} (expected 2, naming eth9 and civ0)\n{p.tail()}")
        p, rc, _ = s.ciao_once(c, "ciao-eth9-browse", "browse", "-t", "-i", "eth9", TYPE)
        if rc != 2:
            raise Failure(f"ciao browse -t -i eth9: exit {rc} (expected 2)\n{p.tail()}")
        figures.append("-i eth9: exit 2 naming the interfaces that exist")
        # what the library rejects is a bad argument too: exit 2 with the usage line
        for args in (("publish", "x" * 64, TYPE, "80"), ("publish", "--subtype", "printer", "X", TYPE, "80"),
                     ("resolve", "", TYPE), ("publish", "-l", "Probe", TYPE, "9000")):
            p, rc, _ = s.ciao_once(c, "ciao-bad-argument", *args)
            if rc != 2 or not any(l.startswith("Usage:") or "usage" in l.lower() for l in p.lines):
                raise Failure(f"ciao {' '.join(args)[:60]}: exit {rc} (expected 2 with the usage line)\n{p.tail()}")
        figures.append("a 64-byte name, a bad subtype, an empty name, a port with --listener: exit 2 with the usage line")

        p, rc, took = s.ciao_once(lonely, "ciao-resolve-lonely", "resolve", "X", TYPE, "--timeout", "2")
        text = "\n".join(p.lines)
        if rc != 1 or "waiting for a network interface" not in text or "no usable network interface" not in text:
            raise Failure(f"ciao resolve with only loopback: exit {rc}\n{p.tail()}")
        # -t lists what is there and exits: with only loopback it waits 10 s for a link, then fails
        t0 = time.monotonic()
        listings = {what: s.ciao(lonely, f"ciao-{what}-t-lonely", *args)
                    for what, args in (("browse", ("browse", "-t", TYPE)), ("types", ("types", "-t")))}
        exited: dict[str, float] = {}
        while len(exited) < len(listings) and time.monotonic() - t0 < 20:
            for what, p in listings.items():
                if what not in exited and p.proc.poll() is not None:
                    exited[what] = time.monotonic() - t0
            time.sleep(0.05)
        for what, p in listings.items():
            p.stop()
            text = "\n".join(p.lines)
            after = exited.get(what)
            if (p.proc.returncode != 1 or after is None or not 9.5 <= after <= 13
                    or "waiting for a network interface" not in text or "no usable network interface" not in text):
                raise Failure(f"ciao {what} -t with only loopback: exit {p.proc.returncode} after "
                              f"{'more than 20' if after is None else f'{after:.1f}'} s "
                              f"(expected 1 after 10 s, saying there is no interface)\n{p.tail()}")
        figures.append(", ".join(f"{what} -t exit 1 after {after:.1f} s" for what, after in exited.items())
                       + " saying no interface")
        late = s.ciao(lonely, "ciao-publish-late", "publish", "--json", "Late Comer", TYPE, "8090")
        s.agents.append(late)
        # the library itself, started before any link: its start waits (default timeout 10 s)
        agent = s.agent(lonely)
        agent.send(cmd="publish", id="late", name="Agent Late", type=TYPE, port=8091, txt=TXT)
        deadline = time.monotonic() + 5
        while not any("waiting for a network interface" in l for l in late.lines):
            if time.monotonic() > deadline:
                raise Failure(f"ciao publish with only loopback did not say it waits\n{late.tail()}")
            time.sleep(0.1)
        time.sleep(2)
        if late.select({"event": "published"}) or agent.select({"id": "late"}):
            raise Failure(f"a publication reported an outcome with no interface\n{late.tail()}\n{agent.tail()}")
        t0 = time.monotonic()
        lab.connect(lonely)
        ciao_published(late, "Late Comer", 15)
        agent.wait_for({"event": "published", "id": "late"}, 8, what="the agent's publication once the link came")
        figures.append(f"only loopback: resolve exit 1 in {took:.1f} s saying no interface; publish waited, "
                       f"published {time.monotonic() - t0:.2f} s after the link came")
        return figures


@scenario("ipv4-only-peer", "a live IPv4-only responder is never reported removed by Ciao's dual-stack browser")
def ipv4_only_peer(s: Suite) -> list[str]:
    """avahi-daemon with use-ipv6=no on host p4, which has no IPv6 at all, publishes a service
    (as printers and JmDNS do);
    the agent on host b browses and resolves it dual-stack; host q asks for the type over IPv6
    every second for 25 s (no IPv4-only responder hears that) and three times 0.2 s apart over
    IPv4 (answered once, §6). The agent reports no removal in 40 s, and still resolves it. Asked
    for the IPv6 addresses of python-zeroconf's host there, `ciao query` says at once that there
    is no such record, as its NSEC says, and `ciao resolve` of its service does not wait for a
    second family; avahi sends no NSEC."""
    with s.lab("ipv4-only-peer", ["p4", "b", "q"]) as lab:
        p4, b, q = lab["p4"], lab["b"], lab["q"]
        p4.run("sysctl", "-qw", f"net.ipv6.conf.{IFNAME}.disable_ipv6=1")
        lab.start_avahi(p4, ipv6=False)
        ap = s.avahi_client(p4)
        expect_published(ap, "a", "Four Only", port=9400)
        agent = s.agent(b)
        agent.send(cmd="browse", id="b", type=TYPE)
        wait_resolved(agent, "Four Only", f"{p4.name}-avahi.local.", 9400, TXT, p4, 10, required=("v4",))
        mark = agent.mark()
        t0 = time.monotonic()
        labels = TYPE.split(".") + ["local"]
        def ask(src: str, dst: str) -> None:
            q.spawn(f"query-{time.monotonic():.3f}", s.zc_python, os.path.join(PEERS, "raw_query.py"), "--src", src,
                    "--sport", "5353", "--dst", dst, "--qtype", "PTR", "--wait", "0.1", "--name", *labels, stdin=False)
        for i in range(25):
            ask(q.v6, "ff02::fb")
            if i == 10:
                for _ in range(3):
                    ask(q.v4, "224.0.0.251")
                    time.sleep(0.2)
            time.sleep(1)
        time.sleep(15)
        removed = agent.select({"event": "removed", "name": "Four Only"}, after=mark)
        if removed:
            raise Failure(f"the agent reported the live IPv4-only service removed {removed[0]['t'] - t0:.1f} s "
                          f"after the IPv6 queries began\n{agent.tail()}")
        r, rc, _ = s.ciao_once(b, "ciao-resolve", "resolve", "Four Only", TYPE, "--timeout", "5")
        if rc != 0:
            raise Failure(f"ciao resolve of the IPv4-only service exited {rc}\n{r.tail()}")
        figures = [f"no removal in {time.monotonic() - t0:.0f} s of IPv6 queries and three IPv4 queries 0.2 s apart; "
                   "still resolved"]
        # python-zeroconf on the same host answers a question for its host's AAAA records with an
        # NSEC listing A alone (RFC 6762 §6.1): asked for the IPv6 addresses alone, Ciao says at
        # once that there is no such record, as `dns-sd -Q` does. avahi sends no such NSEC: asking
        # for its host's runs to the timeout, as `avahi-resolve -6` does.
        zc = s.zeroconf(p4)
        expect_published(zc, "z", "Four Only Too", port=9401)
        zc_host = f"{p4.name}-zc.local"
        r, rc, took = s.ciao_once(q, "ciao-query-no-aaaa", "query", zc_host, "AAAA", "--timeout", "5")
        if rc != 1 or took > 2 or not any("no such record" in line for line in r.lines):
            raise Failure(f"ciao query AAAA of python-zeroconf's IPv4-only host: exit {rc} after {took:.2f} s, "
                          f"expected exit 1 with no such record at once\n{r.tail()}")
        figures.append(f"ciao query AAAA of python-zeroconf's IPv4-only host: no such record (its NSEC) "
                       f"after {took:.2f} s")
        r, rc, _ = s.ciao_once(q, "ciao-query-c-no-aaaa", "query", "-c", "--json", zc_host, "AAAA", "--timeout", "3")
        denials = r.select({"event": "noSuchRecord"})
        if rc != 0 or len(denials) != 1 or denials[0]["type"] != "AAAA" or denials[0]["nsec"].split()[1:] != ["A"]:
            raise Failure(f"ciao query -c AAAA of python-zeroconf's IPv4-only host: exit {rc}, {denials} "
                          f"(expected one noSuchRecord of AAAA with the NSEC listing A)\n{r.tail()}")
        figures.append("ciao query -c: one noSuchRecord line, its NSEC listing A")
        # A one-shot resolve of its service is complete with the IPv4 address and that NSEC; of
        # avahi's, it waits for the answers to pause (a quarter of a second) first.
        for name, owner in (("Four Only Too", "python-zeroconf"), ("Four Only", "avahi")):
            r, rc, took = s.ciao_once(q, "ciao-resolve-four-only", "resolve", "--json", name, TYPE, "--timeout", "5")
            got = r.select({"event": "resolved"})
            if rc != 0 or len(got) != 1 or got[0]["addresses"] != [p4.v4]:
                raise Failure(f"ciao resolve {name!r} ({owner}, IPv4-only): exit {rc}, {got}\n{r.tail()}")
            figures.append(f"ciao resolve of {owner}'s IPv4-only service: {took:.2f} s")
        r, rc, took = s.ciao_once(q, "ciao-query-avahi-aaaa", "query", f"{p4.name}-avahi.local", "AAAA", "--timeout", "1")
        if rc != 1 or not any("answered within" in line for line in r.lines):
            raise Failure(f"ciao query AAAA of avahi's IPv4-only host: exit {rc} after {took:.2f} s, expected "
                          f"exit 1 at the timeout (avahi sends no NSEC)\n{r.tail()}")
        figures.append(f"ciao query AAAA of avahi's IPv4-only host: exit 1 at the timeout, {took:.2f} s (no NSEC)")
        return figures


@scenario("reconfirm", "a reconfirmed service of a peer unplugged without goodbyes goes in 10 s; live peers' stay")
def reconfirm(s: Suite) -> list[str]:
    """avahi-daemon on av, python-zeroconf on zc and, where built, mdnsd on md publish a service
    each; the agent on c browses and resolves them. Reconfirmed while every peer is there, no
    service is removed in 12 s: each peer answers the questions that no longer list its records.
    Then av's link drops every packet both ways, as an unplugged device (no goodbye gets out):
    without a reconfirmation the agent keeps avahi's service for 12 s (its records' TTL is 75
    minutes); reconfirmed, it is removed 10 s later (within 12 s), and the others, reconfirmed
    with it, stay."""
    with_mdnsd = bool(s.mdns_dir) and os.path.exists(os.path.join(s.mdns_dir, "bin", "mdnsd"))
    with s.lab("reconfirm", ["c", "av", "zc"] + (["md"] if with_mdnsd else [])) as lab:
        c, av, zch = lab["c"], lab["av"], lab["zc"]
        ap, zc = publishing_peers(s, lab, av, zch, "Avahi Unplugged", "Zeroconf Here")
        # (instance name, owner host, SRV host, port)
        peers = [("Avahi Unplugged", av, f"{av.name}-avahi.local.", 9000),
                 ("Zeroconf Here", zch, f"{zch.name}-zc.local.", 9001)]
        if with_mdnsd:
            md = lab["md"]
            lab.start_mdnsd(md, s.mdns_dir)
            expect_published(mdns_peer(s, md), "m", "Apple Here", port=9002)
            peers.append(("Apple Here", md, f"{md.name}-mdns.local.", 9002))
        agent = s.agent(c)
        agent.send(cmd="browse", id="b", type=TYPE)
        for name, owner, host, port in peers:
            wait_resolved(agent, name, host, port, TXT, owner, 10, id_="b")
        saved = {name: agent.wait_for({"event": "found", "name": name, "id": "b"}, 1)["saved"]
                 for name, *_ in peers}

        def reconfirm_all() -> None:
            for name, *_ in peers:
                agent.send(cmd="reconfirm", id="b", saved=saved[name])
                agent.wait_for({"event": "reconfirming", "name": name, "id": "b"}, 5)

        figures = []
        time.sleep(2)      # a record heard within the last second is not reconfirmed
        mark = agent.mark()
        reconfirm_all()
        time.sleep(12)
        removed = agent.select({"event": "removed"}, after=mark)
        if removed:
            raise Failure(f"live peers' services removed after a reconfirmation: {[e['name'] for e in removed]}\n"
                          f"{agent.tail()}")
        figures.append(f"{len(peers)} live peers' services reconfirmed: none removed in 12 s")

        av.unplug()
        mark = agent.mark()
        time.sleep(12)
        if agent.select({"event": "removed"}, after=mark):
            raise Failure(f"a service was removed without a reconfirmation\n{agent.tail()}")
        t0 = time.monotonic()
        reconfirm_all()
        r = agent.wait_for({"event": "removed", "name": "Avahi Unplugged", "id": "b"}, 15, after=mark)
        gone = r["t"] - t0
        if not 9.5 <= gone <= 12:
            raise Failure(f"the unplugged peer's service was removed {gone:.2f} s after its reconfirmation, "
                          "not about 10 s")
        time.sleep(3)
        others = [e["name"] for e in agent.select({"event": "removed"}, after=mark) if e["name"] != "Avahi Unplugged"]
        if others:
            raise Failure(f"live peers' services removed with the unplugged one: {others}\n{agent.tail()}")
        figures.append(f"unplugged avahi peer: kept 12 s without a reconfirmation, removed {gone:.2f} s after one; "
                       f"the {len(peers) - 1} live peers' services stay"
                       + ("" if with_mdnsd else " (mdnsd not built here: avahi and python-zeroconf only)"))
        return figures


@scenario("multihomed", "a second interface on Ciao's link goes: peers keep its service, no warning")
def multihomed(s: Suite) -> list[str]:
    """Host c has a second interface, civ1, on the lab's link, as a machine on one network by
    Ethernet and Wi-Fi, and `ciao publish -v` runs there. `ciao browse -r -p` on host b and
    avahi-browse -r on host av see the service; then civ1 loses its addresses, and later its
    link. Neither browser reports the service removed; the goodbyes Ciao sent (captured on b)
    name only civ1's addresses and their reverse names; Ciao's log says the two share a link and
    has no warning; `ciao resolve` on b still resolves it, to c's first addresses alone."""
    name, second = "Two Links", "civ1"
    with s.lab("multihomed", ["c", "b", "av"]) as lab:
        c, b, av = lab["c"], lab["b"], lab["av"]
        v4, v6 = f"{lab.v4net}.{100 + c.num}", f"{V6NET}:{100 + c.num:x}"
        # As Lab.connect: the veth made inside the host, its peer moved straight into the switch.
        c.run("ip", "link", "add", second, "type", "veth", "peer", "name", "p1b", "netns", lab.sw)
        c.run("ip", "netns", "exec", lab.sw, "ip", "link", "set", "p1b", "master", "br0", "up")
        c.run("sysctl", "-qw", f"net.ipv6.conf.{second}.accept_dad=0")
        c.run("ip", "link", "set", second, "multicast", "on", "up")
        c.run("ip", "addr", "add", f"{v4}/24", "dev", second)
        c.run("ip", "-6", "addr", "add", f"{v6}/64", "dev", second, "nodad")
        lab.start_avahi(av)
        sn = sniffer(s, b)
        publisher = s.ciao(c, "ciao-publish", "publish", "-v", "--json", name, TYPE, "9600")
        ciao_published(publisher, name)
        browse = s.ciao(b, "ciao-browse", "browse", "-r", "-p", TYPE)
        ab = avahi_browse(av, "-r", TYPE)
        for p in (browse, ab):
            p.wait_for({"event": "resolved", "name": name}, 10, what=f"{p.name} resolving {name!r}")
        deadline = time.monotonic() + 10
        while not (shared := [l for l in publisher.lines if "on the same link as" in l]) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not shared:
            raise Failure(f"ciao publish -v never said that civ0 and {second} share a link\n{publisher.tail()}")
        marks = {p.name: p.mark() for p in (browse, ab)}
        log_mark = len(publisher.lines)
        second_link_local = c.run("ip", "-6", "-o", "addr", "show", "dev", second, "scope", "link").split()[3].split("/")[0]
        t_gone = time.monotonic()
        c.run("ip", "addr", "flush", "dev", second)
        time.sleep(4)
        c.run("ip", "link", "set", second, "down")
        time.sleep(4)
        problems = []
        for p in (browse, ab):
            removed = p.select({"event": "removed", "name": name}, after=marks[p.name])
            if removed:
                problems.append(f"{p.name} reported the service removed {removed[0]['t'] - t_gone:.1f} s after "
                                f"{second} lost its addresses")
        sources = {plain(a) for a in host_addresses(c) if a} | {v4, v6, plain(second_link_local)}
        gone_names = set()
        for e in sn.select(lambda e: e.get("event") == "packet" and e["t"] >= t_gone):
            if plain(e["from"]) not in sources:
                continue
            m = dnsmsg.parse(bytes.fromhex(e["message"]))
            gone_names |= {(dnsmsg.show_name(r["name"]), r["type"]) for r in m["answers"] if r["ttl"] == 0}
        host_name = ciao_published(publisher, name)["host"].lower()
        # 1 = A, 28 = AAAA, 12 = PTR (reverse mapping), 47 = NSEC of a reverse name
        wrong = sorted(n for n in gone_names if not (
            n[0].lower() == host_name and n[1] in (1, 28) or n[0].endswith(".arpa.") and n[1] in (12, 47)))
        if wrong:
            problems.append(f"goodbyes for records still published on civ0: {wrong}")
        if not any(n[1] in (1, 28) for n in gone_names):
            problems.append(f"no goodbye for {second}'s addresses (captured: {sorted(gone_names)})")
        warnings = [l for l in publisher.lines[log_mark:] if " warning " in l or "multicast(" in l]
        if warnings:
            problems.append(f"warnings when {second} went: {warnings[:3]}")
        r, rc, _ = s.ciao_once(b, "ciao-resolve", "resolve", "-p", name, TYPE, "--timeout", "5")
        addresses = {e.get("address") for e in r.events if e.get("event") == "resolved"}
        if rc != 0 or c.v4 not in addresses or v4 in addresses:
            problems.append(f"ciao resolve on b: exit {rc}, addresses {sorted(a for a in addresses if a)} "
                            f"(want {c.v4}, not {v4})\n{r.tail()}")
        if problems:
            raise Failure("; ".join(problems))
        return [f"{second} lost its addresses, then its link: no removal in 8 s by ciao browse or avahi-browse; "
                f"goodbyes only for {len(gone_names)} records of {second}'s addresses; "
                f"\"{shared[0].split(f'{second}: ', 1)[-1][:60]}...\"; no warning; still resolved to {c.v4}"]


@scenario("txt-as-written", "TXT strings go out in the order and spelling given, and peers read them so")
def txt_as_written(s: Suite) -> list[str]:
    """`ciao publish ... txtvers=1 z=1 a=2 M=3` on host c: the TXT RDATA captured on host obs is
    those four strings in that order; avahi-browse -r -p prints them (in its reverse order) with
    `M` as written; python-zeroconf reads the keys in wire order, `M` included."""
    with s.lab("txt-as-written", ["c", "av", "zc", "obs"]) as lab:
        c, av, zc_host, obs = lab["c"], lab["av"], lab["zc"], lab["obs"]
        lab.start_avahi(av)
        sn = sniffer(s, obs)
        zc = s.zeroconf(zc_host)
        strings = ["txtvers=1", "z=1", "a=2", "M=3"]
        pub = s.ciao(c, "ciao-publish", "publish", "--json", "Ordered", TYPE, "8080", *strings)
        s.agents.append(pub)
        ciao_published(pub, "Ordered")
        want = b"".join(bytes([len(x)]) + x.encode() for x in strings)
        instance = [b"Ordered"] + [l.encode() for l in TYPE.split(".")] + [b"local"]
        deadline = time.monotonic() + 10
        rdata = None
        while rdata is None and time.monotonic() < deadline:
            for e in sn.select({"event": "packet"}):
                if plain(e["from"]) not in {plain(c.v4), plain(c.v6)}:
                    continue
                m = dnsmsg.parse(bytes.fromhex(e["message"]))
                for r in m["answers"] + m["additional"]:
                    if r["type"] == dnsmsg.TYPES["TXT"] and dnsmsg.same_name(r["name"], instance) and r["ttl"] > 0:
                        rdata = r["rdata"]
            time.sleep(0.2)
        if rdata != want:
            raise Failure(f"captured TXT RDATA {rdata!r}, expected {want!r}")
        lines = [l for l in av.run("timeout", "15", "avahi-browse", "-p", "-r", "-t", TYPE, timeout=20).splitlines()
                 if l.startswith("=;") and ";Ordered;" in l]
        expected_field = " ".join(f'"{x}"' for x in reversed(strings))
        if not lines or any(not l.endswith(";" + expected_field) for l in lines):
            raise Failure(f"avahi-browse -p -r lines {lines}, expected the TXT field {expected_field}")
        zc.send(cmd="browse", id="b", type=TYPE)
        r = zc.wait_for({"event": "resolved", "name": "Ordered"}, 10)
        if list(r["txt"].keys()) != ["txtvers", "z", "a", "M"]:
            raise Failure(f"python-zeroconf read the TXT keys {list(r['txt'].keys())}")
        return ["captured RDATA in the order given; avahi-browse and python-zeroconf read M=3 as written, in order"]


LOBBY_TYPE = "_CinchGamingService._tcp"        # 18 characters: longer than RFC 6335 allows


HOSTILE_NAME = "Evil\x1b[2J\x1b]0;pwned\x07\nFake + line\u009b31m"
HOSTILE_SHOWN = "Evil\\027[2J\\027]0;pwned\\007\\010Fake + line\\194\\15531m"


def control_characters(lines: list[str]) -> list[str]:
    """The lines that carry a C0 control character other than tab, DEL, a C1 control character or
    a line separator."""
    return [l for l in lines
            if any((ord(c) < 0x20 and c != "\t") or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in l)]


@scenario("hostile-names", "a peer's name and TXT full of terminal escapes reach the terminal only escaped")
def hostile_names(s: Suite) -> list[str]:
    """avahi-daemon on host av (which takes any bytes in a name) publishes an instance whose name
    carries ESC sequences (clear the screen, set the window title), a newline that would forge a
    line and an 8-bit CSI, and a TXT value with ESC and BEL. On host c, `ciao browse -r -t`,
    `ciao resolve`, `ciao query` and `ciao browse -v -t` print them only as `\\DDD` escapes: no
    control character on standard output or standard error, one `+` line for the one service,
    the name's escaped form shown. (python-zeroconf refuses such a name.)"""
    with s.lab("hostile-names", ["c", "av"]) as lab:
        c, av = lab["c"], lab["av"]
        lab.start_avahi(av)
        publisher = s.avahi_client(av)
        publisher.send(cmd="publish", id="h", name=HOSTILE_NAME, type=TYPE, port=9000, txt={"k": "1b5b33316d07"})
        publisher.wait_for({"event": "published", "id": "h"}, 15)
        figures = []
        runs = [("ciao-browse", ["browse", "-r", "-t", TYPE]),
                ("ciao-resolve", ["resolve", HOSTILE_NAME, TYPE]),
                ("ciao-query", ["query", f"{HOSTILE_NAME}.{TYPE}.local", "TXT"]),
                ("ciao-verbose", ["browse", "-v", "-t", TYPE])]
        for name, args in runs:
            run, rc, _ = s.ciao_once(c, name, *args)
            output = run.lines                       # standard output and standard error
            if rc != 0 or control_characters(output):
                raise Failure(f"{name}: exit {rc}, lines with control characters:\n"
                              + "\n".join(f"    {l!r}" for l in control_characters(output) or output[-5:]))
            if not any(HOSTILE_SHOWN in l for l in run.lines):
                raise Failure(f"{name} did not show {HOSTILE_SHOWN!r}:\n"
                              + "\n".join(f"    {l!r}" for l in run.lines[-8:]))
            if name == "ciao-browse" and sum(l.startswith("+") for l in run.lines) != 1:
                raise Failure("ciao browse -r -t: not one + line for one service:\n"
                              + "\n".join(f"    {l!r}" for l in run.lines))
            figures.append(f"{name.removeprefix('ciao-')}: {len(output)} lines, escaped")
        return figures


@scenario("long-type", "a game lobby's 18-character type, published with NetService and by avahi, found both ways")
def long_type(s: Suite) -> list[str]:
    """NetServiceDemo (NetService code as written for Apple platforms) publishes "Lobby" of
    `_CinchGamingService._tcp.` with TXT GameName / Company on host n1: avahi-browse -r on host av
    and `ciao browse -r` on host c2 resolve it, the keys spelled as written. avahi publishes
    "Avahi Lobby" of the same type: `ciao types -t` lists it and `ciao resolve` resolves it."""
    if not s.demo_path:
        raise Failure("no NetServiceDemo executable (pass --demo PATH)")
    with s.lab("long-type", ["n1", "av", "c2"]) as lab:
        n1, av, c2 = lab["n1"], lab["av"], lab["c2"]
        lab.start_avahi(av)
        demo = n1.spawn("netservice-publish", "env", f"NETSERVICE_DEMO_TYPE={LOBBY_TYPE}.", s.demo_path, "publish",
                        "Lobby", "7000", "GameName=Chess", "Company=Zynga", stdin=False,
                        parse=lambda l: {"event": "line", "line": l})
        demo.wait_for(lambda e: e.get("line", "").startswith("didPublish Lobby"), 15, what="didPublish Lobby")
        t0 = time.monotonic()
        deadline = t0 + 10
        while True:
            lines = [l for l in av.run("timeout", "15", "avahi-browse", "-p", "-r", "-t", LOBBY_TYPE, timeout=20).splitlines()
                     if l.startswith("=;") and ";Lobby;" in l]
            if lines and all('"GameName=Chess"' in l and '"Company=Zynga"' in l for l in lines):
                break
            if time.monotonic() > deadline:
                raise Failure(f"avahi-browse -r {LOBBY_TYPE} on av: {lines}")
            time.sleep(0.5)
        cb, rc, _ = s.ciao_once(c2, "ciao-browse", "browse", "-r", "-p", "-t", LOBBY_TYPE)
        ours = [l for l in cb.lines if l.startswith("=;") and ";Lobby;" in l]
        if rc != 0 or not ours or not all('"GameName=Chess"' in l for l in ours):
            raise Failure(f"ciao browse -r -p -t {LOBBY_TYPE}: exit {rc}\n{cb.tail()}")
        figures = [f"NetService's Lobby found by avahi-browse in {time.monotonic() - t0:.2f} s and by ciao browse, "
                   "GameName and Company as written"]
        ap = av.spawn("avahi-publish", "avahi-publish-service", "Avahi Lobby", LOBBY_TYPE, "5000", "GameName=Go",
                      stdin=False, parse=lambda l: {"event": "line", "line": l})
        ap.wait_for(lambda e: "Established" in e.get("line", ""), 10, what="avahi-publish-service established")
        ct, rc, _ = s.ciao_once(c2, "ciao-types", "types", "-t")
        if rc != 0 or not any(l.strip().startswith(LOBBY_TYPE.lower()) for l in ct.lines):
            raise Failure(f"ciao types -t (exit {rc}) does not list {LOBBY_TYPE.lower()}\n{ct.tail()}")
        cr, rc, took = s.ciao_once(c2, "ciao-resolve", "resolve", "Avahi Lobby", LOBBY_TYPE, "--json")
        r = next(iter(cr.select({"event": "resolved"})), None)
        if rc != 0 or r is None or r.get("port") != 5000:
            raise Failure(f"ciao resolve of avahi's Avahi Lobby: exit {rc}, {r}\n{cr.tail()}")
        figures.append(f"avahi's listed by ciao types -t and resolved in {took:.2f} s")
        return figures


@scenario("subtypes", "a subtype browse finds only the subtype's instances, avahi's and Ciao's")
def subtypes(s: Suite) -> list[str]:
    """avahi on host av publishes "Avahi Printer" under subtype _printer and "Avahi Plain"; `ciao
    publish` on host c1 publishes "Ciao Printer" (--subtype _printer) and "Ciao Plain". On host
    c2, `ciao browse -t -p` of `_printer._sub._ciaotest._tcp` and of `_ciaotest._tcp,_printer`
    list exactly the two printers."""
    with s.lab("subtypes", ["av", "c1", "c2"]) as lab:
        av, c1, c2 = lab["av"], lab["c1"], lab["c2"]
        lab.start_avahi(av)
        for name, extra in (("Avahi Printer", ["--subtype", f"_printer._sub.{TYPE}"]), ("Avahi Plain", [])):
            p = av.spawn(f"avahi-publish-{name.split()[1]}", "avahi-publish-service", *extra, name, TYPE, "631",
                         stdin=False, parse=lambda l: {"event": "line", "line": l})
            p.wait_for(lambda e: "Established" in e.get("line", ""), 10, what=f"{name} established")
        for name, extra in (("Ciao Printer", ["--subtype", "_printer"]), ("Ciao Plain", [])):
            p = s.ciao(c1, f"ciao-publish-{name.split()[1]}", "publish", "--json", *extra, name, TYPE, "632")
            s.agents.append(p)
            ciao_published(p, name)
        figures = []
        for spelling in (f"_printer._sub.{TYPE}", f"{TYPE},_printer"):
            deadline = time.monotonic() + 10
            while True:
                cb, rc, took = s.ciao_once(c2, "ciao-browse-sub", "browse", "-t", "-p", spelling)
                names = {e["name"] for e in map(parse_avahi_browse_line, cb.lines) if e and e["event"] == "found"}
                if rc == 0 and names == {"Avahi Printer", "Ciao Printer"}:
                    break
                if time.monotonic() > deadline:
                    raise Failure(f"ciao browse -t -p {spelling}: exit {rc}, found {sorted(names)}\n{cb.tail()}")
            figures.append(f"{spelling}: the two printers only, in {took:.2f} s")
        return figures


@scenario("service-on-another-host", "ciao publish --host [--address]: services for another host, and a proxy's name")
def service_on_another_host(s: Suite) -> list[str]:
    """`ciao publish --host av-avahi.local` on host c1 publishes "Old Printer" for the host av,
    whose avahi-daemon answers for its own addresses (as `avahi-publish -H` does). avahi-browse
    -r on av and `ciao resolve` on c2 both resolve it to av-avahi.local., av's addresses and
    port 631, and none of c1's; `--host` with `--listener` exits 2. Then a proxy (`dns-sd -P`):
    `ciao publish --host ghost --address 198.18.0.250 --address fd00:198:18::250` publishes "Ghost
    Printer" for a host that does not exist: avahi-browse -r resolves it to ghost.local and the
    IPv4 address, avahi-resolve -4 / -6 -n ghost.local give each address, avahi-resolve -a maps
    each address back to ghost.local, and `avahi-publish -a` of ghost.local with another address
    fails on the name Ciao holds. Last an alias, `--host av-alias --address <av's IPv4>`:
    avahi-resolve -n gives that address, the address still maps back to av-avahi.local, and
    avahi logs no conflict."""
    with s.lab("service-on-another-host", ["av", "c1", "c2"]) as lab:
        av, c1, c2 = lab["av"], lab["c1"], lab["c2"]
        daemon = lab.start_avahi(av)
        target = "av-avahi.local"
        p = s.ciao(c1, "ciao-publish-other-host", "publish", "--json", "--host", target, "Old Printer", TYPE, "631",
                   "rp=ipp/print")
        s.agents.append(p)
        published = ciao_published(p, "Old Printer")
        if not same_host(published.get("host", ""), target):
            raise Failure(f"ciao publish reported host {published.get('host')!r}, not {target}")
        t0 = time.monotonic()
        deadline = t0 + 10
        while True:
            seen = [e for e in avahi_browse_once(av, "-r", TYPE) if e["event"] == "resolved" and e["name"] == "Old Printer"]
            if seen and {plain(e["address"]) for e in seen} >= {av.v4, plain(av.v6)}:
                break
            if time.monotonic() > deadline:
                raise Failure(f"avahi-browse -r resolved {seen} (wanted {target} at {av.v4} and {av.v6})")
        problems = [f"avahi-browse: host {e['host']} port {e['port']}" for e in seen
                    if not same_host(e["host"], target) or e["port"] != 631]
        cr, rc, took = s.ciao_once(c2, "ciao-resolve-other-host", "resolve", "--json", "Old Printer", TYPE)
        resolved = cr.select({"event": "resolved"})
        if rc != 0 or not resolved:
            raise Failure(f"ciao resolve on c2: exit {rc}\n{cr.tail()}")
        r = resolved[0]
        addresses = {plain(a) for a in r.get("addresses", [])}
        if not same_host(r.get("host", ""), target) or r.get("port") != 631 or c1.v4 in addresses or av.v4 not in addresses:
            problems.append(f"ciao resolve: {r}")
        bad, rc_bad, _ = s.ciao_once(c1, "ciao-publish-host-listener", "publish", "--host", target, "--listener", "X", TYPE)
        if rc_bad != 2:
            problems.append(f"--host with --listener exited {rc_bad}, not 2\n{bad.tail()}")
        ghost = s.ciao(c1, "ciao-publish-proxy", "publish", "--json", "--host", "ghost", "--address", "198.18.0.250",
                       "--address", "fd00:198:18::250", "Ghost Printer", TYPE, "631")
        s.agents.append(ghost)
        ciao_published(ghost, "Ghost Printer")
        deadline = time.monotonic() + 10
        while True:
            seen = [e for e in avahi_browse_once(av, "-r", TYPE) if e["event"] == "resolved" and e["name"] == "Ghost Printer"]
            proxied = {plain(e["address"]) for e in seen}
            if "198.18.0.250" in proxied:
                break
            if time.monotonic() > deadline:
                raise Failure(f"avahi-browse -r resolved the proxied service as {seen}")
        if any(not same_host(e["host"], "ghost.local") for e in seen):
            problems.append(f"avahi-browse: proxied host {[e['host'] for e in seen]}")
        name_lookup = [av.run("timeout", "10", "avahi-resolve", family, "-n", "ghost.local", timeout=15,
                              check=False).split()[1:2] for family in ("-4", "-6")]
        if name_lookup != [["198.18.0.250"], ["fd00:198:18::250"]]:
            problems.append(f"avahi-resolve -4 / -6 -n ghost.local: {name_lookup}")
        address_lookup = [av.run("timeout", "10", "avahi-resolve", "-a", address, timeout=15,
                                 check=False).split()[1:2] for address in ("198.18.0.250", "fd00:198:18::250")]
        if address_lookup != [["ghost.local"], ["ghost.local"]]:
            problems.append(f"avahi-resolve -a of the proxied addresses: {address_lookup}")
        rival = av.spawn("avahi-publish-address", "avahi-publish-address", "ghost.local", "198.18.0.251", stdin=False,
                         parse=lambda l: {"event": "line", "line": l})
        rival.wait_for(lambda e: "ollision" in e.get("line", "") or "Established" in e.get("line", ""), 10,
                       what="avahi-publish-address outcome")
        if rival.select(lambda e: "Established" in e.get("line", "")):
            problems.append(f"avahi-publish -a took ghost.local from Ciao: {rival.tail()}")
        alias = s.ciao(c1, "ciao-publish-alias", "publish", "--json", "--host", "av-alias", "--address", av.v4,
                       "Alias Printer", TYPE, "632")
        s.agents.append(alias)
        ciao_published(alias, "Alias Printer")
        alias_lookup = av.run("timeout", "10", "avahi-resolve", "-4", "-n", "av-alias.local", timeout=15,
                              check=False).split()[1:2]
        # Asked on c2, over the link: every PTR that answers, av's alone once Ciao has yielded.
        reverse_name = ".".join(reversed(av.v4.split("."))) + ".in-addr.arpa"
        rq, _, _ = s.ciao_once(c2, "ciao-query-alias-reverse", "query", "--json", reverse_name, "PTR")
        av_reverse = sorted({r["value"].rstrip(".") for r in rq.select({"event": "record"})})
        if alias_lookup != [av.v4] or av_reverse != [target]:
            problems.append(f"an alias of av's address: avahi-resolve -n {alias_lookup}, ciao query PTR {av_reverse}")
        if avahi_conflicts(daemon):
            problems.append("avahi-daemon on av logged: " + " | ".join(avahi_conflicts(daemon)))
        if problems:
            raise Failure("; ".join(problems))
        return [f"avahi-browse -r: {target}, {av.v4} and {av.v6}, port 631", f"ciao resolve: {sorted(addresses)} in {took:.2f} s",
                "--host with --listener: exit 2", f"proxy: avahi-browse -r {sorted(proxied)}, avahi-resolve -n {name_lookup}, -a {address_lookup}",
                "avahi-publish -a of ghost.local: name collision",
                f"alias av-alias.local of {av.v4}: its reverse mapping left to avahi ({av_reverse}), no conflict in its log"]


# ---------------------------------------------------------------------------- Apple's mDNSResponder

def need_mdnsresponder(s: Suite) -> str:
    if not s.mdns_dir or not os.path.exists(os.path.join(s.mdns_dir, "bin", "mdnsd")):
        raise Skip("Apple's mDNSResponder is not built here: set CIAO_MDNSRESPONDER to a directory with "
                   "bin/mdnsd, bin/dns-sd and lib/ (Scripts/interop.sh builds one from "
                   "CIAO_MDNSRESPONDER_SOURCE, the mDNSResponder-2600.100.147 tarball)")
    return s.mdns_dir


def dns_sd_wait(p: JsonProc, needle: str, timeout: float, after: int = 0) -> float:
    return p.wait_for(lambda e: needle in e.get("line", ""), timeout, after=after, what=f"dns-sd line with {needle!r}")["t"]


@scenario("mdnsresponder", "Apple's mDNSResponder (mdnsd, dns-sd) and Ciao find, resolve and lose each other's services")
def mdnsresponder(s: Suite) -> list[str]:
    """mdnsd on host m1 registers "Apple Svc" (dns-sd -R, TXT txtvers=1 z=1 a=2 M=3): `ciao
    browse -r -p` on host c2 resolves it to m1-mdns.local with the TXT strings in wire order.
    `ciao publish` on c2 publishes "Ciao Svc" with the same TXT: dns-sd -B on m1 adds it, dns-sd -L
    resolves it to vm.local with `txtvers=1 z=1 a=2 M=3` in order, and dns-sd -B removes it
    within 2 s of SIGINT."""
    mdns_dir = need_mdnsresponder(s)
    with s.lab("mdnsresponder", ["m1", "c2"]) as lab:
        m1, c2 = lab["m1"], lab["c2"]
        lab.start_mdnsd(m1, mdns_dir)
        strings = ["txtvers=1", "z=1", "a=2", "M=3"]
        reg = lab.dns_sd(m1, "dns-sd-R", "-R", "Apple Svc", TYPE, "local", "9300", *strings)
        dns_sd_wait(reg, "Name now registered and active", 10)
        t0 = time.monotonic()
        cb, rc, took = s.ciao_once(c2, "ciao-browse", "browse", "-r", "-p", "-t", TYPE)
        lines = [l for l in cb.lines if l.startswith("=;") and ";Apple\\032Svc;" in l]
        field = " ".join(f'"{x}"' for x in reversed(strings))
        if rc != 0 or not lines or not all(";m1-mdns.local;" in l and l.endswith(";9300;" + field) for l in lines):
            raise Failure(f"ciao browse -r -p -t of mdnsd's service: exit {rc}\n{cb.tail()}")
        figures = [f"ciao browse resolved mdnsd's service in {took:.2f} s, TXT in wire order"]
        browse = lab.dns_sd(m1, "dns-sd-B", "-B", TYPE, "local")
        pub = s.ciao(c2, "ciao-publish", "publish", "--json", "Ciao Svc", TYPE, "9301", *strings)
        s.agents.append(pub)
        t_pub = ciao_published(pub, "Ciao Svc")["t"]
        t_add = dns_sd_wait(browse, "Ciao Svc", 10)
        look = lab.dns_sd(m1, "dns-sd-L", "-L", "Ciao Svc", TYPE, "local")
        dns_sd_wait(look, "can be reached at", 10)
        t_txt = dns_sd_wait(look, " ".join(strings), 5)
        reached = next(e["line"] for e in look.select({"event": "line"}) if "can be reached at" in e["line"])
        if "vm.local.:9301" not in reached:
            raise Failure(f"dns-sd -L: {reached!r}, expected vm.local.:9301")
        figures.append(f"dns-sd -B added Ciao's {max(0.0, t_add - t_pub):.2f} s after it was published; dns-sd -L "
                       f"resolved it with TXT {' '.join(strings)} in order")
        mark = browse.mark()
        t_int = time.monotonic()
        pub.proc.send_signal(signal.SIGINT)
        if pub.wait_exit(5) != 0:
            raise Failure(f"ciao publish exited {pub.proc.returncode} after SIGINT\n{pub.tail()}")
        t_rmv = browse.wait_for(lambda e: "Rmv" in e.get("line", "") and "Ciao Svc" in e.get("line", ""), 2.5,
                                after=mark, what="dns-sd -B Rmv of Ciao Svc")["t"]
        figures.append(f"dns-sd -B removed it {t_rmv - t_int:.2f} s after SIGINT")
        _ = t0, t_txt
        return figures


@scenario("mdnsresponder-conflict", "a name Ciao owns: mdnsd registering it renames itself quickly")
def mdnsresponder_conflict(s: Suite) -> list[str]:
    """`ciao publish` on host c1 owns "Taken Name"; mdnsd on host m1 registers the same name with
    dns-sd -R: it renames to "Taken Name (2)" within 1.2 s, and the name still resolves to Ciao."""
    mdns_dir = need_mdnsresponder(s)
    with s.lab("mdnsresponder-conflict", ["c1", "m1"]) as lab:
        c1, m1 = lab["c1"], lab["m1"]
        lab.start_mdnsd(m1, mdns_dir)
        pub = s.ciao(c1, "ciao-publish", "publish", "--json", "Taken Name", TYPE, "9310")
        s.agents.append(pub)
        ciao_published(pub, "Taken Name")
        # Past Ciao's announcements (RFC 6762 §8.3), so that mdnsd's probes meet Ciao's defence.
        # An announcement landing among them is a conflict mdnsd takes for possibly spurious
        # (its log says so) and answers with a one-second pause before probing again.
        time.sleep(4)
        t0 = time.monotonic()
        reg = lab.dns_sd(m1, "dns-sd-R", "-R", "Taken Name", TYPE, "local", "9311")
        t = reg.wait_for(lambda e: "Name now registered and active" in e.get("line", ""), 10,
                         what="dns-sd -R registered")
        if "Taken Name (2)" not in t["line"]:
            raise Failure(f"mdnsd registered {t['line']!r}, expected it to rename to 'Taken Name (2)'")
        took = t["t"] - t0
        if took > 1.2:
            raise Failure(f"mdnsd renamed after {took:.2f} s (expected within 1.2 s)")
        r, rc, _ = s.ciao_once(m1, "ciao-resolve", "resolve", "Taken Name", TYPE, "--json")
        ev = next(iter(r.select({"event": "resolved"})), None)
        if rc != 0 or ev is None or ev.get("port") != 9310:
            raise Failure(f"Taken Name no longer resolves to Ciao: exit {rc}, {ev}")
        return [f"mdnsd renamed to 'Taken Name (2)' {took:.2f} s after dns-sd -R; the name still resolves to Ciao"]


@scenario("mdnsresponder-same-host", "mdnsd and Ciao in one namespace, both on port 5353, see each other and are seen")
def mdnsresponder_same_host(s: Suite) -> list[str]:
    """mdnsd (host name m1-mdns) and `ciao publish` share host m1 and port 5353: dns-sd -B there
    lists Ciao's service, `ciao browse -r -p -t` there resolves mdnsd's, and from host c2 both
    resolve to m1's address under their own host names."""
    mdns_dir = need_mdnsresponder(s)
    with s.lab("mdnsresponder-same-host", ["m1", "c2"]) as lab:
        m1, c2 = lab["m1"], lab["c2"]
        lab.start_mdnsd(m1, mdns_dir)
        reg = lab.dns_sd(m1, "dns-sd-R", "-R", "Apple Same", TYPE, "local", "9320", "k=v")
        dns_sd_wait(reg, "Name now registered and active", 10)
        pub = s.ciao(m1, "ciao-publish", "publish", "--json", "Ciao Same", TYPE, "9321", "k=v")
        s.agents.append(pub)
        ciao_published(pub, "Ciao Same")
        browse = lab.dns_sd(m1, "dns-sd-B", "-B", TYPE, "local")
        dns_sd_wait(browse, "Ciao Same", 10)
        local, rc, _ = s.ciao_once(m1, "ciao-browse-local", "browse", "-r", "-p", "-t", TYPE)
        if rc != 0 or not any(l.startswith("=;") and ";Apple\\032Same;" in l and ";m1-mdns.local;" in l for l in local.lines):
            raise Failure(f"ciao browse on mdnsd's host did not resolve Apple Same\n{local.tail()}")
        deadline = time.monotonic() + 10
        while True:
            cb, rc, _ = s.ciao_once(c2, "ciao-browse", "browse", "-r", "-p", "-t", TYPE)
            got = {e["name"]: e for e in map(parse_avahi_browse_line, cb.lines) if e and e["event"] == "resolved"}
            ok = (got.get("Apple Same", {}).get("host") == "m1-mdns.local" and got.get("Ciao Same", {}).get("host") == "vm.local"
                  and all(plain(got[n]["address"]) in {plain(m1.v4), plain(m1.v6), plain(m1.link_local())} for n in ("Apple Same", "Ciao Same")))
            if ok:
                break
            if time.monotonic() > deadline:
                raise Failure(f"from c2: {sorted(got.items())}")
        return ["dns-sd -B and ciao browse on the shared host see each other's service; c2 resolves both to m1"]


def mdns_peer(s: Suite, host: Host, name: str = "mdns-peer") -> JsonProc:
    """peers/mdns_peer.py against `host`'s mdnsd (Lab.start_mdnsd), speaking the peers' JSON protocol."""
    mdns_dir, sock = host.mdns
    p = host.spawn(name, "env", f"DNSSD_UDS_PATH={sock}", s.zc_python, os.path.join(PEERS, "mdns_peer.py"),
                   "--lib", os.path.join(mdns_dir, "lib", "libdns_sd.so"), "--host", f"{host.name}-mdns.local.")
    p.wait_for({"event": "ready"}, 15, what=f"{name} ready")
    return p


@scenario("mdnsresponder-peer", "mDNSResponder as a peer like avahi and zeroconf: both ways, TXT updates, types, IPv6, scale and loss")
def mdnsresponder_peer(s: Suite) -> list[str]:
    """With mdnsd driven through its client library (peers/mdns_peer.py): (1) mdnsd on m1
    publishes "Apple Peer Ü" with a binary TXT; the agent on c2 resolves it with m1's IPv4 and
    IPv6 addresses, sees a TXT update and the removal. (2) The agent publishes "Ciao For Apple Ü";
    mdnsd's browser resolves it, sees a TXT update (captured on host obs: Ciao announces the TXT
    alone, RFC 6762 §8.4), and its removal within 2 s of the agent quitting; `dns-sd -G v4v6`
    resolves the agent's host to both of c2's addresses. (3) Types both
    ways: the agent's types session lists mdnsd's _mdtype._tcp, `dns-sd -B _services._dns-sd._udp`
    lists the agent's _ciaotest._tcp. (4) mdnsd publishes 50 services: a new agent on c3 resolves
    all within 10 s, and another within 30 s with 20 % loss both ways on its link."""
    mdns_dir = need_mdnsresponder(s)
    with s.lab("mdnsresponder-peer", ["m1", "c2", "c3", "obs"]) as lab:
        m1, c2, c3 = lab["m1"], lab["c2"], lab["c3"]
        lab.start_mdnsd(m1, mdns_dir)
        sn = sniffer(s, lab["obs"])
        mp = mdns_peer(s, m1)
        host_m = f"{m1.name}-mdns.local."
        figures = []
        # (1) mdnsd publishes, Ciao resolves
        expect_published(mp, "a", "Apple Peer Ü", port=9800)
        expect_published(mp, "t", "Apple Types", port=9801, type_="_mdtype._tcp")
        agent = s.agent(c2)
        t0 = time.monotonic()
        agent.send(cmd="browse", id="b", type=TYPE)
        r = wait_resolved(agent, "Apple Peer Ü", host_m, 9800, TXT, m1, 10, id_="b")
        figures.append(f"mdnsd's service resolved by Ciao (IPv4 and IPv6) {r['t'] - t0:.2f} s")
        mark, t1 = agent.mark(), time.monotonic()
        mp.send(cmd="updateTXT", id="a", txt=TXT2)
        r = wait_resolved(agent, "Apple Peer Ü", host_m, 9800, TXT2, m1, 10, after=mark, id_="b")
        figures.append(f"its TXT update {r['t'] - t1:.2f} s")
        mark, t1 = agent.mark(), time.monotonic()
        mp.send(cmd="unpublish", id="a")
        r = agent.wait_for({"event": "removed", "name": "Apple Peer Ü", "id": "b"}, 5, after=mark)
        figures.append(f"its removal {r['t'] - t1:.2f} s")

        # (2) Ciao publishes, mdnsd resolves
        mp.send(cmd="browse", id="mb", type=TYPE)
        t0 = time.monotonic()
        host_c = expect_published(agent, "p", "Ciao For Apple Ü")["host"]
        r = wait_resolved(mp, "Ciao For Apple Ü", host_c, 8080, TXT, c2, 10, required=())
        figures.append(f"Ciao's service resolved by mdnsd {r['t'] - t0:.2f} s")
        g = lab.dns_sd(m1, "dns-sd-G", "-G", "v4v6", host_c.rstrip("."))
        def gives(line: str, address: str) -> bool:
            """dns-sd -G writes IPv6 addresses in full, in capitals, with a %<zone>."""
            for word in line.split():
                try:
                    if ipaddress.ip_address(word.split("%")[0]) == ipaddress.ip_address(address):
                        return True
                except ValueError:
                    continue
            return False
        for address in (c2.v4, c2.v6):
            g.wait_for(lambda e, a=address: gives(e.get("line", ""), a), 10, what=f"dns-sd -G of {host_c} giving {address}")
        g.stop()
        figures.append("dns-sd -G v4v6 gives both of its addresses")
        time.sleep(3)                      # the service's own announcements are over
        mark, t1 = mp.mark(), time.monotonic()
        agent.send(cmd="updateTXT", id="p", txt=TXT2)
        r = wait_resolved(mp, "Ciao For Apple Ü", host_c, 8080, TXT2, c2, 10, after=mark, required=())
        figures.append(f"its TXT update seen by mdnsd {r['t'] - t1:.2f} s")
        time.sleep(2)                      # both announcements of the update (§8.4), a second apart
        sources = {plain(a) for a in host_addresses(c2) if a}
        announced = [dnsmsg.TYPE_NAMES.get(rec["type"], str(rec["type"]))
                     for e in sn.select({"event": "packet"}) if e["t"] >= t1 and plain(e["from"]) in sources
                     for m in [dnsmsg.parse(bytes.fromhex(e["message"]))] if m["flags"] & 0x8000 and not m["questions"]
                     for rec in m["answers"]]
        if not announced or set(announced) != {"TXT"}:
            raise Failure(f"Ciao's TXT update announced {announced or 'nothing'}; expected the TXT alone")
        figures.append(f"the update announced as {len(announced)} TXT records and nothing else (capture)")

        # (3) types both ways
        services = lab.dns_sd(m1, "dns-sd-types", "-B", "_services._dns-sd._udp", "local")
        services.wait_for(lambda e: "_ciaotest" in e.get("line", ""), 10, what="dns-sd listing Ciao's type")
        agent.send(cmd="types", id="ty")
        agent.wait_for({"event": "type", "id": "ty", "type": "_mdtype._tcp"}, 10, what="the agent listing mdnsd's type")
        figures.append("types listed both ways")
        mark = mp.mark()
        tq = quit_agent(agent)
        r = mp.wait_for({"event": "removed", "name": "Ciao For Apple Ü"}, 2, after=mark, what="mdnsd seeing Ciao leave")
        figures.append(f"Ciao's removal seen by mdnsd {r['t'] - tq:.2f} s after quit")

        # (4) 50 services, then 20 % loss
        names = [f"Apple Bulk {i:02d}" for i in range(50)]
        for i, n in enumerate(names):
            mp.send(cmd="publish", id=f"bulk{i}", name=n, type=TYPE, port=9900 + i, txt=TXT)
        mp.wait_all(lambda e: e.get("event") == "published" and str(e.get("id", "")).startswith("bulk"), 50, 30, key="id")
        for loss, limit in ((0, 10), (20, 30)):
            if loss:
                c3.loss(loss)
            fresh = s.agent(c3, name=f"agent-{loss}")
            t0 = time.monotonic()
            fresh.send(cmd="browse", id="b", type=TYPE)
            took = fresh.wait_all(lambda e: e.get("event") == "resolved" and e.get("name") in names, 50, limit)
            figures.append(f"50 mdnsd services resolved by a new agent in {took - t0:.2f} s" + (f" at {loss} % loss" if loss else ""))
            quit_agent(fresh)
        return figures


@scenario("scale", "200 avahi services resolved within 10 s, without and with 10 % loss")
def scale(s: Suite) -> list[str]:
    """avahi publishes 200 services (D-Bus); a fresh agent browses and must resolve all 200
    within 10 s; then again with 10 % random loss both ways on the agent's link."""
    count, bound = 200, 10.0
    with s.lab("scale", ["c1", "av"]) as lab:
        c1, av = lab["c1"], lab["av"]
        lab.start_avahi(av)
        ap = s.avahi_client(av)
        ev = publish(ap, "many", "Scale", type_="_ciaoscale._tcp", port=10000, count=count, timeout=90)
        if ev["event"] != "published":
            raise Failure(f"avahi did not establish {count} services: {ev}")
        figures = []
        for loss in (0, 10):
            c1.loss(loss)
            agent = s.agent(c1, name=f"agent-loss{loss}")
            t0 = time.monotonic()
            agent.send(cmd="browse", id="b", type="_ciaoscale._tcp")
            t = agent.wait_all({"event": "resolved", "id": "b"}, count, bound)
            figures.append(f"{count} resolved in {t - t0:.2f} s with {loss} % loss"
                           + (f" ({c1.dropped()} packets dropped)" if loss else ""))
            quit_agent(agent)
        return figures


@scenario("unicast-safety", "no answers off-link; legacy unicast answered correctly")
def unicast_safety(s: Suite) -> list[str]:
    """A raw querier on host q sends unicast queries to the agent from an off-link source
    (198.19.200.1, routed via q): no answer within 2 s. Legacy unicast queries (on-link, source
    port != 5353) for the agent's SRV, TXT and PTR get unicast answers with the same ID, the
    question echoed, no cache-flush bit and TTL <= 10."""
    name = "Unicast Ciao"
    offlink = "198.19.200.1"
    with s.lab("unicast-safety", ["c1", "q"]) as lab:
        c1, q = lab["c1"], lab["q"]
        q.run("ip", "addr", "add", f"{offlink}/24", "dev", "civ0")
        c1.run("ip", "route", "add", "198.19.200.0/24", "via", q.v4)      # so an answer could reach it
        # counts the off-link queries that reach c1's UDP layer (else the test would prove nothing)
        c1.nft("table inet ciaocount {\n chain in {\n  type filter hook input priority 0; policy accept;\n"
               f"  ip saddr {offlink} udp dport 5353 counter\n }}\n}}\n")
        agent = s.agent(c1)
        expect_published(agent, "p", name)
        instance = [name, "_ciaotest", "_tcp", "local"]
        for sport in (5353, 40000):
            replies = raw_query(q, src=offlink, sport=sport, dst=c1.v4, qtype="SRV", labels=instance, qid=7)
            if replies:
                raise Failure(f"the agent answered an off-link query (source {offlink}:{sport}): "
                              f"{[describe_reply(r) for r in replies]}")
        hits = int(re.search(r"packets (\d+)", c1.run("nft", "list", "table", "inet", "ciaocount")).group(1))
        if hits < 2:
            raise Failure(f"the off-link queries did not reach c1's stack (counter {hits}): the test is void")
        figures = [f"no answer to {hits} off-link queries in 2 s"]
        for qid, (qtype, qname) in enumerate((("SRV", instance), ("TXT", instance),
                                              ("PTR", ["_ciaotest", "_tcp", "local"])), start=0x4321):
            replies = raw_query(q, src=q.v4, sport=0, dst="224.0.0.251", qtype=qtype, labels=qname, qid=qid)
            problems = legacy_problems(replies, c1, qid, qtype, qname)
            if problems:
                raise Failure(f"legacy unicast {qtype} query: " + "; ".join(problems))
            figures.append(f"legacy {qtype} answered in {replies[0]['t'] - replies[0]['sent']:.3f} s")
        return figures


def raw_query(q: Host, src: str, sport: int, dst: str, qtype: str, labels: list[str], qid: int) -> list[dict]:
    """Replies (parsed) to one query sent from host q; waits 2 s."""
    out = q.run(sys.executable, os.path.join(PEERS, "raw_query.py"), "--src", src, "--sport", str(sport),
                "--dst", dst, "--id", str(qid), "--qtype", qtype, "--wait", "2", "--name", *labels, timeout=15)
    events = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    sent = events[-1]["sent"]
    return [dict(e, sent=sent, msg=dnsmsg.parse(bytes.fromhex(e["message"]))) for e in events if e["event"] == "reply"]


def describe_reply(r: dict) -> str:
    m = r["msg"]
    recs = [f"{dnsmsg.show_name(x['name'])} {dnsmsg.TYPE_NAMES.get(x['type'], x['type'])} class=0x{x['class']:04x} "
            f"ttl={x['ttl']}" for sec in ("answers", "authority", "additional") for x in m[sec]]
    return f"from {r['from']}:{r['port']} id={m['id']} flags=0x{m['flags']:04x} records: " + ", ".join(recs)


def legacy_problems(replies: list[dict], c1: Host, qid: int, qtype: str, qname: list[str]) -> list[str]:
    """What is wrong with the replies to a legacy unicast query (empty list: all fine)."""
    if not replies:
        return ["no reply within 2 s"]
    if len(replies) > 1:
        return [f"{len(replies)} replies: {[describe_reply(r) for r in replies]}"]
    r, m = replies[0], replies[0]["msg"]
    want = [l.encode() for l in qname]
    p = []
    if r["from"] != c1.v4 or r["port"] != 5353:
        p.append(f"reply from {r['from']}:{r['port']}, not {c1.v4}:5353")
    if m["id"] != qid:
        p.append(f"id {m['id']} != {qid}")
    if not m["flags"] & 0x8000:
        p.append("QR bit not set")
    if (len(m["questions"]) != 1 or not dnsmsg.same_name(m["questions"][0][0], want)
            or m["questions"][0][1:] != (dnsmsg.TYPES[qtype], 1)):
        p.append(f"question not echoed: {[(dnsmsg.show_name(n), t, c) for n, t, c in m['questions']]}")
    if not any(a["type"] == dnsmsg.TYPES[qtype] and dnsmsg.same_name(a["name"], want) for a in m["answers"]):
        p.append(f"no {qtype} answer for the question")
    for sec in ("answers", "authority", "additional"):
        for x in m[sec]:
            if x["class"] & dnsmsg.CACHE_FLUSH:
                p.append(f"cache-flush bit on {dnsmsg.show_name(x['name'])} type {x['type']}")
            if x["ttl"] > 10:
                p.append(f"TTL {x['ttl']} > 10 on {dnsmsg.show_name(x['name'])} type {x['type']}")
    return p + ([describe_reply(r)] if p else [])


@scenario("membership-limit", "30 extra interfaces and a flap: the IPv4 membership on the main one comes back")
def membership_limit(s: Suite) -> list[str]:
    """Host c has 30 more interfaces (veth pairs, one end addressed) than its link, past Linux's
    20 IPv4 group memberships per socket. `ciao browse -4` there warns, on standard error, for
    the interfaces it cannot join; after its link goes down and up, a service avahi publishes on
    host a only then is still found (without the membership on the link, nothing multicast there
    is heard over IPv4)."""
    with s.lab("membership-limit", ["c", "a"]) as lab:
        c, a = lab["c"], lab["a"]
        for i in range(30):
            c.run("ip", "link", "add", f"ml{i}", "type", "veth", "peer", "name", f"ml{i}p")
            c.run("ip", "addr", "add", f"198.18.220.{i + 1}/32", "dev", f"ml{i}")
            for end in (f"ml{i}", f"ml{i}p"):
                c.run("ip", "link", "set", end, "multicast", "on", "up")
        lab.start_avahi(a, ipv6=False)
        ap = s.avahi_client(a)
        browse = s.ciao(c, "ciao-browse", "browse", "-v", "-4", "-p", TYPE)
        expect_published(ap, "before", "Before Flap", port=9500)
        browse.wait_for({"event": "found", "name": "Before Flap"}, 10, what="Before Flap")
        deadline = time.monotonic() + 5
        while not (warned := [line for line in browse.lines if "is not heard on" in line]) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not warned:
            raise Failure(f"ciao browse gave no warning for the interfaces past the limit\n{browse.tail()}")
        # Before the flap: each interface past the limit once, however many scans there were.
        failed_joins = [line for line in browse.lines if "cannot join the IPv4 mDNS group" in line]
        if not failed_joins or len(failed_joins) != len({line.split(": ")[1].split()[-1] for line in failed_joins}):
            raise Failure(f"ciao browse -v: failed joins not reported once each: {failed_joins[:5]}")
        c.link(False)
        time.sleep(2)
        c.link(True)
        time.sleep(3)
        mark = browse.mark()
        t0 = time.monotonic()
        expect_published(ap, "after", "After Flap", port=9501)
        browse.wait_for({"event": "found", "name": "After Flap"}, 10, after=mark, what="After Flap after the flap")
        took = time.monotonic() - t0
        return [f"{len(warned)} interfaces past the limit reported (\"{warned[0][:90]}...\"), "
                f"{len(failed_joins)} failed joins logged by -v; "
                f"after the flap a new service was found in {took:.2f} s over IPv4"]


def forger(s: Suite, host: Host, name: str, *args: str) -> JsonProc:
    """A running peers/forger.py MODE in `host`, once it listens."""
    p = host.spawn(name, s.zc_python, os.path.join(PEERS, "forger.py"), "--src4", host.v4, "--src6", host.v6,
                   *args, stdin=False)
    p.wait_for({"event": "ready"}, 10, what=f"{name} ready")
    return p


def probes_from(sn: JsonProc, sender: Host, label: str, after: float = 0.0) -> list[dict]:
    """The probes (queries with an authority section) `sender` sent for instance `label`, seen by
    the sniffer after time `after`."""
    sources = {plain(a) for a in host_addresses(sender) if a}
    out = []
    for e in sn.select({"event": "packet"}):
        if e["t"] < after or plain(e["from"]) not in sources:
            continue
        m = dnsmsg.parse(bytes.fromhex(e["message"]))
        if not m["flags"] & 0x8000 and m["authority"] and any(
                q[0] and q[0][0].decode("utf-8", "replace").lower() == label.lower() for q in m["questions"]):
            out.append(e)
    return out


@scenario("forged-answers", "a host forging conflicting answers: §9 conflicts, no false 'published', a clear error")
def forged_answers(s: Suite) -> list[str]:
    """Host f forges answers. (1) It answers every probe for names starting with "Forged": `ciao
    publish --no-rename` exits 1 with the name-conflict error, printing no `published`; with
    renaming allowed, `ciao publish` never says `published` for a name it did not win, and keeps
    to RFC 6762 §8.1's 15 conflicts in 10 s. (2) Answers of class CH (3) are no conflict: the name
    is published as given. (3) One unsolicited conflicting answer, over IPv4 and IPv6, for an
    established name: Ciao probes again once (three probes, not six), nobody defends, the name
    stays."""
    with s.lab("forged-answers", ["c", "f", "obs"]) as lab:
        c, f, obs = lab["c"], lab["f"], lab["obs"]
        sn = sniffer(s, obs)
        figures = []
        probes = forger(s, f, "forger-probes", "probes", "--prefix", "Forged")
        strict = s.ciao(c, "ciao-publish-strict", "publish", "--json", "--no-rename", "Forged One", TYPE, "8101")
        rc = strict.wait_exit(20)
        strict.stop()
        said = " | ".join(strict.lines)
        if rc != 1 or "conflict" not in said.lower() or strict.select({"event": "published"}):
            raise Failure(f"ciao publish --no-rename under forged answers: exit {rc}, said: {said[-400:]}")
        if "no answer arrived" in said:
            raise Failure(f"ciao publish --no-rename said the opposite of what happened: {said[-300:]}")
        figures.append(f"--no-rename: exit 1 with {strict.lines[-1][:80]!r}")

        t0 = time.monotonic()
        renaming = s.ciao(c, "ciao-publish-renaming", "publish", "--json", "Forged Two", TYPE, "8102")
        time.sleep(15)
        published = renaming.select({"event": "published"})
        if published:
            raise Failure(f"ciao publish said published for {published[0].get('name')!r}, a name it never won")
        # One forged answer per name tried (over each family); a name's first answer is its conflict.
        tried: dict[str, float] = {}
        for e in probes.select({"event": "forged"}):
            if e["t"] >= t0:
                tried.setdefault(e["name"], e["t"])
        times = sorted(tried.values())
        for i in range(15, len(times)):
            if times[i - 1] - times[i - 15] <= 10 and times[i] - times[i - 1] < 4.9:
                raise Failure(f"name {i + 1} tried {times[i] - times[i - 1]:.2f} s after 15 conflicts within 10 s "
                              "(RFC 6762 §8.1: wait at least 5 s)")
        rc = renaming.wait_exit(0)
        renaming.stop()
        probes.stop()
        ended = "still renaming" if rc is None else f"exit {rc}: {renaming.lines[-1][:70]!r}"
        if rc is not None and (rc != 1 or "conflict" not in renaming.lines[-1].lower()):
            raise Failure(f"ciao publish under forged answers ended without the conflict error: {ended}")
        figures.append(f"renaming: no 'published' in 15 s; {len(times)} names tried, the 16th "
                       f"{times[15] - times[14]:.1f} s after the 15th; {ended}" if len(times) > 15 else
                       f"renaming: no 'published' in 15 s; {len(times)} names tried; {ended}")

        other_class = forger(s, f, "forger-class3", "probes", "--prefix", "Forged", "--class", "3")
        three = s.ciao(c, "ciao-publish-class3", "publish", "--json", "Forged Three", TYPE, "8103")
        s.agents.append(three)
        ciao_published(three, "Forged Three", timeout=10)
        if not other_class.select({"event": "forged"}):
            raise Failure("the class-3 forger answered no probe")
        figures.append("class-3 answers to its probes: published as 'Forged Three'")

        settled = s.ciao(c, "ciao-publish-settled", "publish", "--json", "Settled", TYPE, "8104")
        s.agents.append(settled)
        ciao_published(settled, "Settled", timeout=10)
        time.sleep(2)
        t1 = time.monotonic()
        forger(s, f, "forger-answer", "answer", "--name", "Settled", *TYPE.split("."), "local")
        time.sleep(4)
        reprobes = probes_from(sn, c, "Settled", after=t1)
        renamed = [e for e in settled.events if e.get("event") == "published" and e.get("name") != "Settled"]
        if renamed:
            raise Failure(f"one forged answer renamed an established service: {renamed}")
        per_family = [len([e for e in reprobes if (":" in e["from"]) == v6]) for v6 in (False, True)]
        if not all(1 <= n <= 3 for n in per_family):
            raise Failure(f"after one conflicting answer over two families Ciao sent {per_family} probes over "
                          "IPv4 and IPv6 (expected one round of up to three over each)")
        figures.append(f"one forged answer over IPv4 and IPv6: one round of re-probes ({per_family[0]} over each "
                       "family), the name stays")
        return figures


@scenario("forged-goodbye", "a forged goodbye for Ciao's records is refuted at once; browsers keep the service")
def forged_goodbye(s: Suite) -> list[str]:
    """`ciao publish` on host c; avahi-browse on host av lists the service. Host f forges a
    goodbye (TTL-0 copies of Ciao's PTR, SRV and TXT, over IPv4 and IPv6): Ciao multicasts them
    again within 1 s, and avahi-browse prints no removal."""
    with s.lab("forged-goodbye", ["c", "av", "f", "obs"]) as lab:
        c, av, f, obs = lab["c"], lab["av"], lab["f"], lab["obs"]
        lab.start_avahi(av)
        sn = sniffer(s, obs)
        pub = s.ciao(c, "ciao-publish", "publish", "--json", "Said Goodbye", TYPE, "8110")
        s.agents.append(pub)
        ciao_published(pub, "Said Goodbye")
        browse = av.spawn("avahi-browse", "avahi-browse", "-p", TYPE, parse=parse_avahi_browse_line, stdin=False)
        browse.wait_for({"event": "found", "name": "Said Goodbye"}, 10, what="avahi-browse lists Said Goodbye")
        time.sleep(2)
        bye = forger(s, f, "forger-goodbye", "goodbye", "--name", "Said Goodbye", *TYPE.split("."), "local",
                     "--delay", "0.5")
        raw_query_from(s, obs, [*TYPE.split("."), "local"], "PTR")
        forged = bye.wait_for({"event": "done"}, 10, what="forged goodbye sent")
        if forged.get("error"):
            raise Failure(f"the forger sent no goodbye: {forged['error']}")
        t_bye = min(e["t"] for e in bye.select({"event": "forged"}))
        time.sleep(3)
        sources = {plain(a) for a in host_addresses(c) if a}
        again = []
        for e in sn.select({"event": "packet"}):
            if e["t"] <= t_bye or plain(e["from"]) not in sources:
                continue
            m = dnsmsg.parse(bytes.fromhex(e["message"]))
            if m["flags"] & 0x8000 and any(r["ttl"] > 0 and r["type"] == dnsmsg.TYPES["SRV"]
                                           and r["name"][0] == b"Said Goodbye" for r in m["answers"]):
                again.append(e["t"] - t_bye)
        if not again or again[0] > 1.0:
            raise Failure(f"Ciao did not multicast its SRV again within 1 s of the forged goodbye: {again[:3]}")
        removed = browse.select({"event": "removed", "name": "Said Goodbye"})
        if removed:
            raise Failure(f"avahi-browse reported Said Goodbye removed {removed[0]['t'] - t_bye:.2f} s after the goodbye")
        return [f"re-announced {again[0] * 1000:.0f} ms after the forged goodbye; avahi-browse kept the service"]


def raw_query_from(s: Suite, host: Host, labels: list[str], qtype: str) -> None:
    """One QM query from `host` (port 5353, IPv4) for the name of `labels`."""
    host.spawn(f"query-{time.monotonic():.3f}", s.zc_python, os.path.join(PEERS, "raw_query.py"), "--src", host.v4,
               "--sport", "5353", "--dst", "224.0.0.251", "--qtype", qtype, "--wait", "0.1",
               "--name", *labels, stdin=False)


@scenario("query-storm", "5,000 queries a second: no record multicast twice within one second")
def query_storm(s: Suite) -> list[str]:
    """`ciao publish` on host c; host f multicasts 5,000 QM queries a second for its SRV for 5 s;
    the sniffer on host obs sees every response Ciao multicasts: no record twice within 1 s on the
    link over one family (RFC 6762 §6)."""
    with s.lab("query-storm", ["c", "f", "obs"]) as lab:
        c, f, obs = lab["c"], lab["f"], lab["obs"]
        pub = s.ciao(c, "ciao-publish", "publish", "--json", "Storm Target", TYPE, "8120")
        s.agents.append(pub)
        ciao_published(pub, "Storm Target")
        time.sleep(3)
        sn = sniffer(s, obs)
        t0 = time.monotonic()
        storm = forger(s, f, "forger-storm", "storm", "--name", "Storm Target", *TYPE.split("."), "local",
                       "--qtype", "SRV", "--rate", "5000", "--seconds", "5")
        done = storm.wait_for({"event": "done"}, 30, what="the storm's end")
        time.sleep(1)
        sources = {plain(a): ("IPv6" if ":" in a else "IPv4") for a in host_addresses(c) if a}
        last: dict[tuple, float] = {}
        gaps: list[float] = []
        responses = 0
        for e in sn.select({"event": "packet"}):
            if e["t"] < t0 or plain(e["from"]) not in sources:
                continue
            m = dnsmsg.parse(bytes.fromhex(e["message"]))
            if not m["flags"] & 0x8000:
                continue
            responses += 1
            at = e["kt"] if e.get("kt") is not None else e["t"]     # the kernel's receive time
            for r in m["answers"]:
                key = (sources[plain(e["from"])], bytes(b"".join(r["name"])).lower(), r["type"], r["rdata"])
                if key in last:
                    gaps.append(at - last[key])
                last[key] = at
        if responses < 3:
            raise Failure(f"only {responses} responses from Ciao during the storm")
        # Kernel receive times: the gap on the wire, to the microsecond (a switch between).
        if gaps and min(gaps) < 0.999:
            raise Failure(f"a record was multicast again after {min(gaps) * 1000:.0f} ms under the storm")
        return [f"{done['sent']} queries in {done['seconds']:.1f} s: {responses} responses, "
                f"shortest repeat of a record {min(gaps) * 1000:.1f} ms (kernel receive times)" if gaps else "no record repeated"]


def resident_kib(pid: int) -> int:
    """The resident set of process `pid`, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


@scenario("flood", "2,700 new services a second from one host: the legitimate stay, events stay prompt")
def flood_browser(s: Suite) -> list[str]:
    """avahi on host a publishes "Legit Before"; `ciao browse -p` on host c lists it. Host f then
    announces 2,700 new services of the type a second for 20 s (TTL 7200), each named with the
    time it was sent; 5 s in, avahi publishes "Legit During". Every line ciao browse prints comes
    within 1 s of its packet, "Legit During" within 1 s of its publication, "Legit Before" is never
    removed, and ciao's memory stays bounded."""
    with s.lab("flood", ["c", "a", "f"]) as lab:
        c, a, f = lab["c"], lab["a"], lab["f"]
        lab.start_avahi(a)
        ap = s.avahi_client(a)
        expect_published(ap, "before", "Legit Before", port=9600)
        browse = s.ciao(c, "ciao-browse", "browse", "-p", TYPE)
        browse.wait_for({"event": "found", "name": "Legit Before"}, 10, what="Legit Before listed")
        time.sleep(1)
        rss0 = resident_kib(browse.proc.pid)
        flooder = forger(s, f, "forger-flood", "flood", "--name", *TYPE.split("."), "local",
                         "--rate", "2700", "--seconds", "20")
        t0 = time.monotonic()
        time.sleep(5)
        during = publish(ap, "during", "Legit During", port=9601)
        t_during = during["t"]
        done = flooder.wait_for({"event": "done"}, 40, what="the flood's end")
        time.sleep(2)
        rss1 = resident_kib(browse.proc.pid)
        lateness = [e["t"] - float(e["name"].split()[2]) for e in browse.select({"event": "found"})
                    if e["name"].startswith("flood ")]
        found_during = browse.select({"event": "found", "name": "Legit During"})
        removed = browse.select({"event": "removed", "name": "Legit Before"})
        if removed:
            raise Failure(f"Legit Before reported removed {removed[0]['t'] - t0:.1f} s into the flood")
        if not found_during or found_during[0]["t"] - t_during > 1.0:
            took = f"{found_during[0]['t'] - t_during:.2f} s" if found_during else "never"
            raise Failure(f"Legit During, published mid-flood, listed after {took}")
        if lateness and max(lateness) > 1.0:
            raise Failure(f"ciao browse printed a flood service {max(lateness):.2f} s after its packet "
                          f"({len(lateness)} listed)")
        return [f"{done['sent']} services flooded in {done['seconds']:.0f} s: {len(lateness)} listed, the latest "
                f"{max(lateness, default=0) * 1000:.0f} ms after its packet; Legit During listed "
                f"{(found_during[0]['t'] - t_during) * 1000:+.0f} ms from avahi's 'published'; Legit Before kept; "
                f"RSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB"]


@scenario("flap", "50 link flaps and address changes: both sides recover, no fd leak")
def flap(s: Suite) -> list[str]:
    """The agent publishes and browses; its link goes down/up 50 times (addresses removed and
    re-added every 10th time). Then a fresh zeroconf browser (empty cache) resolves the agent's
    service, the agent's browse session still has the peer's service and resolves it, and the
    agent's descriptor count is unchanged."""
    with s.lab("flap", ["c1", "zc", "zb"]) as lab:
        c1, zch = lab["c1"], lab["zc"]
        zc = s.zeroconf(zch)
        expect_published(zc, "z", "Flap Peer", port=9001)
        agent = s.agent(c1)
        host = expect_published(agent, "p", "Flap Ciao")["host"]
        agent.send(cmd="browse", id="b", type=TYPE)
        wait_resolved(agent, "Flap Peer", f"{zch.name}-zc.local.", 9001, TXT, zch, 10, id_="b")
        time.sleep(1)
        fds0 = stats(agent)["fds"]
        t0 = time.monotonic()
        for i in range(50):
            c1.link(False)
            time.sleep(0.05)
            c1.link(True)
            if i % 10 == 9:
                c1.addresses(False)
                time.sleep(0.2)
                c1.addresses(True)
            time.sleep(0.2)
        t_flaps = time.monotonic() - t0

        t1 = time.monotonic()
        zb = s.zeroconf(lab["zb"])
        zb.send(cmd="browse", id="b", type=TYPE)
        rz = wait_resolved(zb, "Flap Ciao", host, 8080, TXT, c1, 15)

        def membership():
            return agent.select(lambda e: e.get("id") == "b" and e.get("name") == "Flap Peer"
                                and e["event"] in ("found", "removed"))
        deadline = time.monotonic() + 10
        while membership()[-1]["event"] == "removed" and time.monotonic() < deadline:
            time.sleep(0.2)
        last = membership()
        if last[-1]["event"] == "removed":
            raise Failure(f"the agent's browse session has not found Flap Peer again within 10 s "
                          f"(last: removed at t={last[-1]['t']:.3f}, flaps ended at t={t1:.3f})")
        mark = agent.mark()
        agent.send(cmd="resolve", id="r", name="Flap Peer", type=TYPE, timeout=5)
        ra = agent.wait_for(lambda e: e.get("id") == "r" and e["event"] in ("resolved", "resolveFailed"), 10, after=mark)
        if ra["event"] != "resolved" or resolution_problems(ra, f"{zch.name}-zc.local.", 9001, TXT, zch):
            raise Failure(f"after the flaps the agent cannot resolve Flap Peer correctly: {ra}")
        deadline = time.monotonic() + 5
        while True:                                  # sockets of vanished addresses may close late
            fds = stats(agent)["fds"]
            if fds == fds0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        if fds != fds0:
            raise Failure(f"the agent has {fds} descriptors after the flaps, {fds0} before")
        flips = len(last) - 1
        return [f"50 flaps in {t_flaps:.1f} s", f"a fresh zeroconf resolved Ciao's {rz['t'] - t1:.2f} s later",
                f"agent browse saw {flips} found/removed changes of the peer, the last found "
                f"{last[-1]['t'] - t1:+.2f} s after the flaps", f"fds {fds0} -> {fds}"]


def stats(agent: JsonProc) -> dict:
    mark = agent.mark()
    agent.send(cmd="stats", id="s")
    return agent.wait_for({"event": "stats", "id": "s"}, 5, after=mark)


CLI_NAME = 'Odd "Name" Ü.dot'
CLI_TXT = ["k=v", "empty=", "flag", r"bin=\x00\xff\x80"]                 # as ciao publish takes it
CLI_JSON_TXT = {"k": "v", "empty": "", "flag": True, "bin": {"hex": "00ff80"}}  # as ciao --json shows it


def avahi_escape_name(name: str) -> str:
    """A service name as avahi-browse -p prints it (see ParsableFormatter.escapedName)."""
    out = ""
    for b in name.encode():
        c = chr(b)
        if c.isascii() and (c.isalnum() or c in "-_"):
            out += c
        elif c in ".\\":
            out += "\\" + c
        else:
            out += f"\\{b:03d}"
    return out


PARITY_NAMES = {"ciao": 'Ciao Sp ace.dot\\back "q" Ü', "avahi": 'Avahi Sp ace.dot\\back "q" Ü',
                "zeroconf": 'Zc Sp ace\\back "q" Ü',  # python-zeroconf splits an instance name at its dots
                "avahi-ipv4": 'Avahi4 Sp ace.dot\\back "q" Ü'}
PARITY_TXT = {"q": '"quoted"'.encode().hex(), "tab": "a\tb".encode().hex(), "bin": "00ff80", "flag": None,
              "empty": ""}


@scenario("browse-parity", "ciao browse -r -p -t and avahi-browse -r -p -t: the same lines for every publisher")
def browse_parity(s: Suite) -> list[str]:
    """Ciao (the agent), avahi, python-zeroconf and an IPv4-only avahi (use-ipv6=no, as printers
    and IoT devices are) each publish a service whose name has spaces, a dot, a backslash, quotes
    and UTF-8, with TXT values holding quotes, a tab and binary bytes; `ciao browse -r -p -t` and
    `avahi-browse -r -p -t` on other hosts print the same lines, also with -k for a type avahi's
    database describes (_http._tcp). Each prints a line per protocol a service's records came
    over: none over IPv6 for the IPv4-only publisher, and on the IPv6 resolved line of avahi's
    dual-stack service its IPv6 address, since avahi-daemon sends no A record over IPv6
    (publish-a-on-ipv6=no) and the line shows the first address that came over its protocol."""
    with s.lab("browse-parity", ["pc", "pa", "pz", "p4", "bc", "ba"]) as lab:
        pc, pa, pz, p4, bc, ba = lab["pc"], lab["pa"], lab["pz"], lab["p4"], lab["bc"], lab["ba"]
        lab.start_avahi(pa)
        lab.start_avahi(p4, ipv6=False)
        lab.start_avahi(ba)
        publishers = {"ciao": s.agent(pc), "avahi": s.avahi_client(pa), "zeroconf": s.zeroconf(pz),
                      "avahi-ipv4": s.avahi_client(p4)}
        for stack, peer in publishers.items():
            expect_published(peer, stack, PARITY_NAMES[stack], port=9700, txt=PARITY_TXT)
            expect_published(peer, stack + "-web", PARITY_NAMES[stack], port=9701, txt=PARITY_TXT, type_="_http._tcp")
        # Three dual-stack services with + and = over both protocols, the IPv4-only one over IPv4.
        expected = 3 * 4 + 2
        avahis = ";" + avahi_escape_name(PARITY_NAMES["avahi"]) + ";"
        figures = []
        for args in (["-r", "-p", "-t", TYPE], ["-r", "-p", "-t", "_http._tcp"], ["-r", "-p", "-k", "-t", "_http._tcp"]):
            deadline = time.monotonic() + 15
            while True:
                cb, rc, _ = s.ciao_once(bc, "ciao-browse", "browse", *args)
                ciao_lines = sorted(l for l in cb.lines if l[:2] in ("+;", "=;", "-;"))
                out = ba.run("timeout", "15", "avahi-browse", *args, timeout=20)
                avahi_lines = sorted(l for l in out.splitlines() if l[:2] in ("+;", "=;", "-;"))
                if (avahi_lines == ciao_lines and len(ciao_lines) >= expected) or time.monotonic() > deadline:
                    break
                time.sleep(1)
            if avahi_lines != ciao_lines:
                diff = ([f"    only ciao  | {l}" for l in ciao_lines if l not in avahi_lines]
                        + [f"    only avahi | {l}" for l in avahi_lines if l not in ciao_lines])
                raise Failure(f"ciao browse {' '.join(args)} and avahi-browse differ:\n" + "\n".join(diff))
            if len(ciao_lines) != expected:
                raise Failure(f"ciao browse {' '.join(args)}: {len(ciao_lines)} lines, expected {expected} (three "
                              "dual-stack services over two protocols, one IPv4-only over one):\n"
                              + "\n".join(ciao_lines))
            ipv4_only = ";" + avahi_escape_name(PARITY_NAMES["avahi-ipv4"]) + ";"
            if any(l.startswith(("+;civ0;IPv6;", "=;civ0;IPv6;")) and ipv4_only in l for l in ciao_lines):
                raise Failure("an IPv6 line for the IPv4-only publisher:\n" + "\n".join(ciao_lines))
            v6_line = next((l for l in ciao_lines if l.startswith("=;civ0;IPv6;") and avahis in l), "")
            if pa.v4 in v6_line:
                raise Failure(f"the IPv6 resolved line of avahi's service carries its IPv4 address: {v6_line}")
            figures.append(f"{' '.join(args)}: {len(ciao_lines)} identical lines")
        return figures + ["the IPv4-only publisher on IPv4 lines only; avahi's IPv6 resolved line with its IPv6 address"]


@scenario("cli", "ciao publish / browse / resolve / types against avahi-browse, line for line")
def cli(s: Suite) -> list[str]:
    """`ciao publish` (host c1) with an awkward name and a binary TXT; `ciao browse -r -p -t`
    (host c2) and `avahi-browse -p -r -t` (host av) print the same lines; `ciao resolve --json`,
    `ciao types -t` and `ciao browse --all` see it, `ciao resolve` of a missing name exits 1;
    after SIGINT to `ciao publish` (exit 0) live `ciao browse -p` and `avahi-browse -p` print
    its `-` lines within 2 s."""
    with s.lab("cli", ["c1", "c2", "av"]) as lab:
        c1, c2, av = lab["c1"], lab["c2"], lab["av"]
        lab.start_avahi(av)
        pub = s.ciao(c1, "ciao-publish", "publish", "--json", CLI_NAME, TYPE, "8080", *CLI_TXT)
        s.agents.append(pub)                         # its exit status is checked, its output shown on failure
        ev = pub.wait_for({"event": "published"}, 20, what="published event from ciao publish")
        if ev.get("name") != CLI_NAME or ev.get("type") != TYPE or ev.get("port") != 8080:
            raise Failure(f"ciao publish reported {ev}, expected {CLI_NAME!r} {TYPE} port 8080")
        host = ev["host"]
        figures = []

        # the same lines from ciao browse and avahi-browse
        cb, rc, took = s.ciao_once(c2, "ciao-browse-rpt", "browse", "-r", "-p", "-t", TYPE)
        if rc != 0:
            raise Failure(f"ciao browse -r -p -t exited with {rc}\n{cb.tail()}")
        ciao_lines = sorted(l for l in cb.lines if l[:2] in ("+;", "=;", "-;"))
        deadline = time.monotonic() + 10
        while True:                  # avahi-browse -t may end before av's avahi has heard everything
            t_ab = time.monotonic()
            out = av.run("timeout", "15", "avahi-browse", "-p", "-r", "-t", TYPE, timeout=20)
            t_ab = time.monotonic() - t_ab
            avahi_lines = sorted(l for l in out.splitlines() if l[:2] in ("+;", "=;", "-;"))
            if avahi_lines == ciao_lines or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        if avahi_lines != ciao_lines:
            diff = ([f"    only ciao  | {l}" for l in ciao_lines if l not in avahi_lines]
                    + [f"    only avahi | {l}" for l in avahi_lines if l not in ciao_lines])
            raise Failure("ciao browse -r -p -t and avahi-browse -p -r -t differ:\n" + "\n".join(diff))
        resolved = [e for e in map(parse_avahi_browse_line, ciao_lines) if e and e["event"] == "resolved"]
        if not resolved or any(e["name"] != CLI_NAME or e["port"] != 8080 or e["txt"] != TXT
                               or not same_host(e["host"], host) or e["address"] != c1.v4 for e in resolved):
            raise Failure(f"the lines do not describe {CLI_NAME!r} at {host} {c1.v4}:8080 with TXT "
                          f"{show_txt(TXT)}:\n" + "\n".join(f"    {l}" for l in ciao_lines))
        figures.append(f"ciao browse -r -p -t exited 0 in {took:.2f} s with the {len(ciao_lines)} lines of "
                       f"avahi-browse -p -r -t ({t_ab:.2f} s)")

        # resolve, types, browse --all
        cr, rc, took = s.ciao_once(c2, "ciao-resolve", "resolve", CLI_NAME, TYPE, "--json")
        r = next(iter(cr.select({"event": "resolved"})), None)
        if rc != 0 or r is None:
            raise Failure(f"ciao resolve exited with {rc}\n{cr.tail()}")
        got = {plain(a) for a in r.get("addresses", [])}
        if (r.get("name") != CLI_NAME or not same_host(r.get("host", ""), host) or r.get("port") != 8080
                or r.get("txt") != CLI_JSON_TXT or c1.v4 not in got or plain(c1.v6) not in got
                or got - {plain(a) for a in host_addresses(c1)}):
            raise Failure(f"ciao resolve --json: {r}; expected {CLI_NAME!r} on {host} port 8080, TXT "
                          f"{CLI_JSON_TXT}, addresses of c1 incl. {c1.v4} and {c1.v6}")
        figures.append(f"ciao resolve {took:.2f} s")
        cn, rc, took = s.ciao_once(c2, "ciao-resolve-missing", "resolve", "Nonexistent", TYPE, "--timeout", "1")
        if rc != 1 or took > 3:
            raise Failure(f"ciao resolve of a missing name: exit {rc} after {took:.2f} s (expected 1 after ~1 s)\n"
                          + cn.tail())
        figures.append(f"missing name: exit 1 in {took:.2f} s")
        ct, rc, took = s.ciao_once(c2, "ciao-types", "types", "-t")
        if rc != 0 or TYPE not in [l.strip() for l in ct.lines]:
            raise Failure(f"ciao types -t (exit {rc}) does not list {TYPE}\n{ct.tail()}")
        figures.append(f"types -t {took:.2f} s")
        ca, rc, took = s.ciao_once(c2, "ciao-browse-all", "browse", "--all", "-t", "-p")
        found = sorted(l for l in ca.lines if l.startswith("+;"))
        want = [l for l in ciao_lines if l.startswith("+;")]
        if rc != 0 or not set(want) <= set(found):
            raise Failure(f"ciao browse --all -t -p (exit {rc}) lacks {sorted(set(want) - set(found))}\n{ca.tail()}")
        figures.append(f"browse --all -t {took:.2f} s")

        # SIGINT: gone from a live ciao browse and a live avahi-browse within 2 s
        lb = s.ciao(c2, "ciao-browse-live", "browse", "-p", TYPE)
        ab = avahi_browse(av, TYPE)
        protocols = {e["protocol"] for e in map(parse_avahi_browse_line, want)}
        for p in (lb, ab):
            p.wait_all({"event": "found", "name": CLI_NAME}, len(protocols), 10, key="protocol")
        mark_l, mark_a = lb.mark(), ab.mark()
        t0 = time.monotonic()
        pub.proc.send_signal(signal.SIGINT)
        rc = pub.wait_exit(2)
        t_exit = time.monotonic() - t0
        if rc != 0:
            state = "did not exit" if rc is None else f"exited with {rc}"
            raise Failure(f"ciao publish {state} in {t_exit:.2f} s after SIGINT (expected 0)\n{pub.tail()}")
        gone_l = lb.wait_all({"event": "removed", "name": CLI_NAME}, len(protocols), t0 + 2 - time.monotonic(),
                             key="protocol", after=mark_l)
        gone_a = ab.wait_all({"event": "removed", "name": CLI_NAME}, len(protocols), t0 + 2 - time.monotonic(),
                             key="protocol", after=mark_a)
        lb.proc.send_signal(signal.SIGINT)
        if lb.wait_exit(5) != 0:
            raise Failure(f"ciao browse exited with {lb.proc.returncode} after SIGINT (expected 0)\n{lb.tail()}")
        figures.append(f"after SIGINT publish exited 0 in {t_exit:.2f} s, removal seen by ciao browse "
                       f"{gone_l - t0:.2f} s, avahi-browse {gone_a - t0:.2f} s")
        return figures


CHAT_TYPE = "_ciaochat._tcp"


def parse_chat_line(line: str) -> dict | None:
    """One line of Examples/Chat's output -> ready / joined / left / message event (None for
    its `chat: ...` diagnostics, which arrive on the same pipe)."""
    m = re.fullmatch(r"ready (.+) (\d+)", line)
    if m:
        return {"event": "ready", "name": m[1], "port": int(m[2])}
    for word in ("joined", "left"):
        if line.startswith(word + " "):
            return {"event": word, "nick": line[len(word) + 1:]}
    nick, sep, text = line.partition(": ")
    if sep and nick != "chat":
        return {"event": "message", "nick": nick, "text": text}
    return None


def chat_say(p: JsonProc, text: str) -> float:
    """Type one line into a running chat; returns the time it was written."""
    t = time.monotonic()
    try:
        p.proc.stdin.write(text + "\n")
        p.proc.stdin.flush()
    except (BrokenPipeError, ValueError) as e:
        raise Failure(f"{p.name} is not running (stdin closed: {e})\n{p.tail()}")
    return t


def chat_deliver(sender: JsonProc, nick: str, receivers: list[JsonProc], text: str, timeout: float = 5) -> list[float]:
    """`sender` (nick `nick`) types `text`; each receiver must print `nick: text`. Returns the latencies."""
    marks = [r.mark() for r in receivers]
    t0 = chat_say(sender, text)
    return [r.wait_for({"event": "message", "nick": nick, "text": text}, timeout, after=m,
                       what=f"message {nick}: {text!r}")["t"] - t0 for r, m in zip(receivers, marks)]


@scenario("lookups", "resolve-host, resolve-address and query against avahi's, python-zeroconf's and Ciao's records")
def lookups(s: Suite) -> list[str]:
    """From host q, `ciao resolve-host` finds the addresses of avahi's, python-zeroconf's and
    Ciao's host names (both families, -4 and -6 alone, link-local with its zone) and
    `resolve-address` maps each address back where the peer answers reverse lookups; an unknown
    name fails with exit 1 at its timeout. `ciao query` asks for PTR, SRV, TXT, A, AAAA, NSEC,
    HINFO and TYPE16, and `query -c` reports avahi's TXT update and its goodbye as they happen.
    `browse -l` leaves out the services published on the browsing host, by another ciao process
    or by avahi-daemon beside it."""
    with s.lab("lookups", ["q", "av", "zc", "c"]) as lab:
        q, av, zch, c = lab["q"], lab["av"], lab["zc"], lab["c"]
        lab.start_avahi(av, hinfo=True)
        ap = s.avahi_client(av)
        zc = s.zeroconf(zch)
        expect_published(ap, "a", "Avahi Lookup", port=9000)
        expect_published(zc, "z", "Zeroconf Lookup", port=9001)
        pub = s.ciao(c, "ciao-publish", "publish", "--json", "Ciao Lookup", TYPE, "9002")
        s.agents.append(pub)
        ciao_host = ciao_published(pub, "Ciao Lookup")["host"].rstrip(".")
        figures = []

        def json_lines(p: JsonProc, event: str) -> list[dict]:
            return [e for e in p.select({"event": event})]

        owners = [(f"{av.name}-avahi.local", av, True), (f"{zch.name}-zc.local", zch, False), (ciao_host, c, True)]
        for name, owner, answers_reverse in owners:
            want_v4, want_v6 = {plain(owner.v4)}, {plain(owner.v6), plain(owner.link_local())}
            p, rc, took = s.ciao_once(q, "ciao-resolve-host", "resolve-host", "--json", name.removesuffix(".local"))
            got = [e["address"] for e in json_lines(p, "address")]
            v4 = {plain(a) for a in got if ":" not in a}
            v6 = {plain(a) for a in got if ":" in a}
            if rc != 0 or v4 != want_v4 or not v6 or not v6 <= want_v6:
                raise Failure(f"ciao resolve-host {name}: exit {rc}, {got} (expected {want_v4} and within {want_v6})\n{p.tail()}")
            zoned = [a for a in got if a.lower().startswith("fe80")]
            if any(not a.endswith(f"%{IFNAME}") for a in zoned):
                raise Failure(f"ciao resolve-host {name}: link-local addresses without the zone %{IFNAME}: {zoned}")
            if got.index(next(a for a in got if ":" not in a)) != 0:
                raise Failure(f"ciao resolve-host {name}: IPv4 not first: {got}")
            for flag, want in (("-4", want_v4), ("-6", want_v6)):
                p, rc, _ = s.ciao_once(q, f"ciao-resolve-host{flag}", "resolve-host", flag, name)
                fields = [line.split("\t") for line in p.lines if "\t" in line]
                addresses = {plain(f[1]) for f in fields}
                if rc != 0 or not addresses or not addresses <= want or any(f[0] != name for f in fields):
                    raise Failure(f"ciao resolve-host {flag} {name}: exit {rc}, lines {p.lines}")
            figures.append(f"{name}: {len(got)} addresses in {took:.2f} s, "
                           f"{'with' if zoned else 'without'} link-local")
            if not answers_reverse:
                # python-zeroconf publishes no reverse PTR records (seen on the wire), so there is
                # nothing to map its addresses back with.
                p, rc, _ = s.ciao_once(q, "ciao-resolve-address-zc", "resolve-address", "--timeout", "2", owner.v4)
                if rc != 1:
                    raise Failure(f"ciao resolve-address {owner.v4} (python-zeroconf, no reverse records): exit {rc}\n{p.tail()}")
                continue
            for address in (owner.v4, owner.v6):
                p, rc, _ = s.ciao_once(q, "ciao-resolve-address", "resolve-address", address)
                fields = [line.split("\t") for line in p.lines if "\t" in line]
                if rc != 0 or len(fields) != 1 or fields[0] != [address, name]:
                    raise Failure(f"ciao resolve-address {address}: exit {rc}, lines {p.lines} (expected {address}<TAB>{name})")
        figures.append("resolve-address maps avahi's and Ciao's addresses back; python-zeroconf's times out (no reverse records)")

        # Beside avahi-daemon (so asking without QU) and back to back: avahi multicasts an answer
        # at most once a second (RFC 6762 §6) and sends A records over IPv4 only, so the first
        # query of a run following another may bring the AAAA alone; the IPv4 address must still
        # be there, from the second query.
        av_name = f"{av.name}-avahi"
        for round_ in range(4):
            for args in (("resolve-host", av_name), ("resolve", "--json", "Avahi Lookup", TYPE)):
                p, rc, took = s.ciao_once(av, f"ciao-{args[0]}-again", *args)
                got = " ".join(p.lines)
                if rc != 0 or plain(av.v4) not in got or plain(av.v6) not in got:
                    raise Failure(f"ciao {' '.join(args)} on {av.name}, run {round_ + 1} back to back: exit {rc}, "
                                  f"{p.lines} (expected {av.v4} and {av.v6})\n{p.tail()}")
        figures.append("beside avahi-daemon, back to back: resolve-host and resolve gave both families 4 times of 4")

        # A host whose only IPv6 address is link-local (as on most home networks): avahi and
        # Ciao then publish it, and it is shown with its zone.
        for name, owner in ((f"{av.name}-avahi.local", av), (ciao_host, c)):
            owner.run("ip", "-6", "addr", "del", f"{owner.v6}/64", "dev", IFNAME)
        deadline = time.monotonic() + 10
        for name, owner in ((f"{av.name}-avahi.local", av), (ciao_host, c)):
            want = f"{owner.link_local()}%{IFNAME}"
            while True:
                p, rc, _ = s.ciao_once(q, "ciao-resolve-host-6", "resolve-host", "-6", name)
                got = [line.split("\t")[1] for line in p.lines if "\t" in line]
                if rc == 0 and got == [want]:
                    break
                if time.monotonic() > deadline:
                    raise Failure(f"ciao resolve-host -6 {name} with only a link-local IPv6 address: exit {rc}, "
                                  f"{got} (expected [{want}])\n{p.tail()}")
                time.sleep(0.5)
        figures.append(f"only link-local IPv6: avahi's and Ciao's shown as fe80::…%{IFNAME}")

        p, rc, took = s.ciao_once(q, "ciao-resolve-host-unknown", "resolve-host", "--timeout", "2", "nobody-here")
        if rc != 1 or not any("nobody-here" in line and "not resolved" in line for line in p.lines) or took > 5:
            raise Failure(f"ciao resolve-host nobody-here: exit {rc} after {took:.1f} s\n{p.tail()}")
        figures.append(f"an unknown name: exit 1 after {took:.1f} s (timeout 2 s)")

        # -l leaves out what this host publishes: Ciao's own (another ciao process on q) and
        # avahi-daemon's beside it (on av); -c, with no daemon cache to dump, is -t.
        local = s.ciao(q, "ciao-publish-local", "publish", "--json", "Local One", TYPE, "9003")
        s.agents.append(local)
        ciao_published(local, "Local One")
        peers = {"Avahi Lookup", "Zeroconf Lookup", "Ciao Lookup"}
        for where, flags, want in ((q, ["-t"], peers | {"Local One"}), (q, ["-t", "-l"], peers),
                                   (q, ["-c", "-l"], peers), (av, ["-t", "-l"], peers - {"Avahi Lookup"} | {"Local One"})):
            p, rc, _ = s.ciao_once(where, "ciao-browse-l", "browse", *flags, "-p", TYPE)
            names = {avahi_unescape(line.split(";")[3]).decode() for line in p.lines if line.startswith("+;")}
            if rc != 0 or names != want:
                raise Failure(f"ciao browse {' '.join(flags)} on {where.name}: exit {rc}, {sorted(names)} (expected {sorted(want)})")
        figures.append("browse -l leaves out Ciao's own and avahi-daemon's services on their host; -c is -t")

        av_host = f"{av.name}-avahi.local."
        instance = f"Avahi Lookup.{TYPE}.local."
        checks = [
            (f"{TYPE}.local", "PTR", lambda vs: {f"Avahi Lookup.{TYPE}.local.", f"Zeroconf Lookup.{TYPE}.local.", f"Ciao Lookup.{TYPE}.local."} <= set(vs)),
            (instance, "SRV", lambda vs: vs == [f"0 0 9000 {av_host}"]),
            (instance, "TXT", lambda vs: len(vs) == 1 and '"k=v"' in vs[0] and '"flag"' in vs[0]),
            (instance, "TYPE16", lambda vs: len(vs) == 1 and '"k=v"' in vs[0]),
            (av_host, "A", lambda vs: vs == [av.v4]),
            (av_host, "AAAA", lambda vs: bool(vs) and {plain(v) for v in vs} <= {plain(av.v6), plain(av.link_local())}),
            (av_host, "HINFO", lambda vs: len(vs) == 1 and vs[0].count('"') == 4),
            (f"{ciao_host}.", "NSEC", lambda vs: len(vs) == 1 and "A" in vs[0].split() and "AAAA" in vs[0].split()),
            (f"{ciao_host}.", "28", lambda vs: bool(vs)),
        ]
        for name, rtype, good in checks:
            p, rc, _ = s.ciao_once(q, f"ciao-query-{rtype}", "query", "-v", "--json", name, rtype)
            records = json_lines(p, "record")
            values = [r["value"] for r in records]
            if rc != 0 or not good(values) or any(r["interface"] != IFNAME or r["ttl"] <= 0 for r in records):
                raise Failure(f"ciao query {name} {rtype}: exit {rc}, {records}\n{p.tail()}")
        figures.append("query PTR, SRV, TXT, TYPE16, A, AAAA, HINFO, NSEC and 28: the peers' records")

        follow = s.ciao(q, "ciao-query-c", "query", "-c", "--json", instance, "TXT")
        follow.wait_for({"event": "added"}, 5, what="the TXT record added")
        t0 = time.monotonic()
        ap.send(cmd="updateTXT", id="a", txt=TXT2)
        # The new record comes at once; the old one, flushed by its cache-flush bit, goes a
        # second later (RFC 6762 §10.2), as `dns-sd -Q` shows them.
        def is_new(e: dict) -> bool:
            return '"new"' in e.get("value", "")
        r = follow.wait_for(lambda e: e.get("event") in ("added", "updated") and is_new(e), 5, what="the TXT update")
        updated = r["t"] - t0
        r = follow.wait_for(lambda e: e.get("event") == "removed" and not is_new(e), 5, what="the old TXT flushed")
        flushed = r["t"] - t0
        t0 = time.monotonic()
        ap.send(cmd="unpublish", id="a")
        r = follow.wait_for(lambda e: e.get("event") == "removed" and is_new(e), 5, what="the goodbye")
        figures.append(f"query -c: TXT update after {updated:.2f} s, the old one flushed after {flushed:.2f} s, "
                       f"goodbye after {r['t'] - t0:.2f} s")
        follow.proc.send_signal(signal.SIGINT)
        rc = follow.wait_exit(5)
        if rc != 0:
            raise Failure(f"ciao query -c after SIGINT: exit {rc}")
        return figures


NFT_MDNS_COUNTERS = f"""
table inet ciao_counters {{
    chain input {{
        type filter hook input priority 0; policy accept;
        iifname "{IFNAME}" udp dport 5353 counter
    }}
    chain output {{
        type filter hook output priority 0; policy accept;
        oifname "{IFNAME}" udp sport 5353 counter
    }}
}}
"""


def nft_mdns_counts(h: Host) -> tuple[int, int]:
    """(packets in, packets out) of UDP port 5353 on the lab interface, by NFT_MDNS_COUNTERS."""
    text = h.run("nft", "list", "table", "inet", "ciao_counters")
    counts = [int(m) for m in re.findall(r"counter packets (\d+)", text)]
    return counts[0], counts[1]


def verbose_lines(p: JsonProc, *words: str, after: int = 0) -> list[str]:
    """The lines of `p` (standard error included) from `after` on that contain every word."""
    return [line for line in p.lines[after:] if all(w in line for w in words)]


@scenario("diagnostics", "ciao -v: a conflict, an interface flap and a malformed packet each said once with the reason; counters as nftables counts")
def diagnostics(s: Suite) -> list[str]:
    """`ciao publish -v` in host c takes a name avahi owns on host av: the conflict (who answered)
    and the rename are each logged once; a 3-byte datagram host x multicasts is logged once as
    undecodable with the decoder's reason and offset; a flap of c's link is logged once going
    and once coming back. Then `ciao query -v -c` prints its counters at the end, which must equal
    what an nftables counter on c's link counted for port 5353, packets in and out, within one."""
    with s.lab("diagnostics", ["c", "av", "x"]) as lab:
        c, av, x = lab["c"], lab["av"], lab["x"]
        lab.start_avahi(av)
        ap = s.avahi_client(av)
        expect_published(ap, "t", "Taken", port=9000)
        pub = s.ciao(c, "ciao-publish-v", "publish", "-v", "--json", "Taken", TYPE, "9100")
        s.agents.append(pub)
        ciao_published(pub, "Taken (2)")
        conflict = verbose_lines(pub, "publication", f"answers for Taken.{TYPE}.local.", "choosing another name")
        renamed = verbose_lines(pub, "publication", f"lost Taken.{TYPE}.local. to a conflict")
        if len(conflict) != 1 or len(renamed) != 1 or not any(plain(av.v4) in l or plain(av.v6) in l for l in conflict):
            raise Failure(f"ciao publish -v: conflict lines {conflict}, rename lines {renamed} (expected one each, naming av)")
        figures = [f"conflict and rename logged once: \"{conflict[0].split(f'{IFNAME}: ', 1)[1][:100]}\""]

        mark = len(pub.lines)
        x.run(sys.executable, "-c", "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
              f"s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton('{x.v4}')); "
              "s.sendto(bytes([0, 1, 2]), ('224.0.0.251', 5353))")
        deadline = time.monotonic() + 5
        while not verbose_lines(pub, "undecodable", after=mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        # the loopback of ciao's own last announcement may be logged just after the mark: not ours to count
        dropped = [line for line in verbose_lines(pub, "dropped a datagram", after=mark)
                   if "our own multicast" not in line]
        if len(dropped) != 1 or f"from {x.v4}:" not in dropped[0] or "shorter than the 12-byte header (at offset 0)" not in dropped[0]:
            raise Failure(f"ciao publish -v after a 3-byte datagram: {dropped} (expected one line naming {x.v4}, the reason and offset)")
        figures.append(f"malformed datagram: \"{dropped[0].split(f'{IFNAME}: ', 1)[1][:120]}\"")

        mark = len(pub.lines)
        c.link(False)
        time.sleep(2)
        c.link(True)
        deadline = time.monotonic() + 10
        while not verbose_lines(pub, "interface", IFNAME, "in use", after=mark) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1)
        gone = verbose_lines(pub, "interface", IFNAME, "gone or down", after=mark)
        back = verbose_lines(pub, "interface", IFNAME, "in use", after=mark)
        if len(gone) != 1 or len(back) != 1:
            raise Failure(f"ciao publish -v across a flap: {gone} and {back} (expected one line each)")
        figures.append("flap: one line down, one line back")
        pub.proc.send_signal(signal.SIGINT)
        if pub.wait_exit(5) != 0:
            raise Failure(f"ciao publish -v after SIGINT: exit {pub.proc.returncode}\n{pub.tail()}")

        time.sleep(2)
        c.nft(NFT_MDNS_COUNTERS)
        before = nft_mdns_counts(c)
        # Four seconds of continuous querying: queries at about 0, 1 and 3 s, and avahi's answers.
        p, rc, _ = s.ciao_once(c, "ciao-query-v", "query", "-v", "-c", "--timeout", "4", f"{TYPE}.local", "PTR")
        after = nft_mdns_counts(c)
        counted_in, counted_out = after[0] - before[0], after[1] - before[1]
        stats = verbose_lines(p, "statistics", IFNAME)
        received = sum(int(re.search(r"received (\d+) packets", l).group(1)) for l in stats)
        sent = sum(int(re.search(r"sent (\d+) ", l).group(1)) for l in stats)
        own = sum(int(re.search(r"(\d+) our own looped back", l).group(1)) for l in stats)
        if rc != 0 or abs(received - counted_in) > 1 or abs(sent - counted_out) > 1:
            raise Failure(f"ciao query -v: exit {rc}; counted {received} in and {sent} out, nftables {counted_in} and "
                          f"{counted_out}\n" + "\n".join(stats))
        # Every query went to the group, so the kernel looped each back to us: the engine drops
        # those (the last may still be unread at exit).
        if not sent - 1 <= own <= sent:
            raise Failure(f"ciao query -v: {own} of our own looped back, having sent {sent}\n" + "\n".join(stats))
        figures.append(f"counters: {received} in / {sent} out ({own} of ours looped back), "
                       f"nftables {counted_in} / {counted_out}")
        return figures


@scenario("chat", "Examples/Chat: instances find each other with Ciao, connect over TCP, relay lines")
def chat(s: Suite) -> list[str]:
    """Chat instances alice (c1) and bob (c2) publish _ciaochat._tcp, find each other, connect
    (one TCP connection per pair) and exchange a line both ways; carol (c3) joins later, gets
    the next line alice types and her own line reaches both; EOF on carol's stdin ends her with
    exit 0 and the others print `left carol`. No one hears their own lines or joins twice."""
    if not s.chat_path:
        raise Failure("no Chat executable (pass --chat PATH)")

    def start(host: Host, nick: str) -> tuple[JsonProc, dict]:
        t0 = time.monotonic()
        p = host.spawn(f"chat-{nick}", s.chat_path, "--nick", nick, "--interface", "civ0", parse=parse_chat_line)
        s.agents.append(p)                           # SIGTERM (or EOF) must end it with status 0
        ready = p.wait_for({"event": "ready"}, 20, what="ready line")
        if ready["name"] != nick or not 0 < ready["port"] < 65536:
            raise Failure(f"{p.name}: {ready}, expected published name {nick!r} and a port")
        ready["took"] = ready["t"] - t0
        return p, ready

    def joined(p: JsonProc, nicks: list[str], timeout: float, after: int = 0) -> float:
        return p.wait_all(lambda e: e["event"] == "joined" and e["nick"] in nicks, len(nicks), timeout,
                          key="nick", after=after)

    def ms(*xs: float) -> str:
        return "/".join(f"{x * 1000:.1f}" for x in xs) + " ms"

    with s.lab("chat", ["c1", "c2", "c3"]) as lab:
        alice, ra = start(lab["c1"], "alice")
        bob, rb = start(lab["c2"], "bob")
        t_ready = max(ra["t"], rb["t"])
        t_joined = max(joined(alice, ["bob"], 15), joined(bob, ["alice"], 15))
        figures = [f"ready (published) {ms(ra['took'], rb['took'])} after start, joined {ms(t_joined - t_ready)} "
                   f"after both were ready"]
        l1 = chat_deliver(alice, "alice", [bob], "hello from alice")
        l2 = chat_deliver(bob, "bob", [alice], "hi alice, bob here")
        figures.append(f"latency alice->bob {ms(*l1)}, bob->alice {ms(*l2)}")

        ma, mb = alice.mark(), bob.mark()
        carol, rc = start(lab["c3"], "carol")
        t3 = max(joined(carol, ["alice", "bob"], 15), joined(alice, ["carol"], 15, after=ma),
                 joined(bob, ["carol"], 15, after=mb))
        figures.append(f"carol ready {ms(rc['took'])} after start, joined both {ms(t3 - rc['t'])} after ready")
        l3 = chat_deliver(alice, "alice", [bob, carol], "welcome carol")
        l4 = chat_deliver(carol, "carol", [alice, bob], "thanks, carol here")
        figures.append(f"alice->bob/carol {ms(*l3)}, carol->alice/bob {ms(*l4)}")

        ma, mb = alice.mark(), bob.mark()
        t0 = time.monotonic()
        carol.proc.stdin.close()
        if carol.wait_exit(5) != 0:
            state = "did not exit" if carol.proc.returncode is None else f"exited with {carol.proc.returncode}"
            raise Failure(f"carol {state} within 5 s of EOF on stdin (expected 0)\n{carol.tail()}")
        t_exit = time.monotonic() - t0
        t_left = max(p.wait_for({"event": "left", "nick": "carol"}, 5, after=m)["t"] for p, m in ((alice, ma), (bob, mb)))
        figures.append(f"carol exited 0 {ms(t_exit)} after EOF, alice and bob saw her leave {ms(t_left - t0)}")

        for p, nick in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
            own = p.select({"event": "message", "nick": nick})
            twice = [n for n in ("alice", "bob", "carol") if len(p.select({"event": "joined", "nick": n})) > 1]
            if own or twice:
                raise Failure(f"{p.name}: printed its own lines {own} or joined twice {twice}\n{p.tail()}")
        return figures


# ---------------------------------------------------------------------------- main


@scenario("persistence", "a saved Service reference resolves to where its publisher is now")
def persistence(s: Suite) -> list[str]:
    """The agent on c1 publishes "Persisted" on port 8080; the agent on c2 finds it and keeps the
    `saved` JSON of the found event (the Codable `Service`: name, type, domain, interface). c1's
    agent exits and a new one publishes the same name on port 9090; c2 resolves the saved
    reference and must get port 9090."""
    with s.lab("persistence", ["c1", "c2"]) as lab:
        c1, c2 = lab["c1"], lab["c2"]
        first = s.agent(c1, "publisher-1")
        expect_published(first, "p", "Persisted", port=8080)
        browser = s.agent(c2, "browser")
        browser.send(cmd="browse", id="b", type=TYPE)
        found = browser.wait_for(lambda e: e.get("event") == "found" and e.get("name") == "Persisted", 10,
                                 what="the browser finding Persisted")
        saved = found.get("saved")
        if not saved or '"Persisted"' not in saved:
            raise Failure(f"found event carries no saved Service: {found}")
        browser.send(cmd="stopBrowse", id="b")
        quit_agent(first)
        second = s.agent(c1, "publisher-2")
        expect_published(second, "p", "Persisted", port=9090)
        t0 = time.monotonic()
        browser.send(cmd="resolve", id="r", saved=saved, timeout=10)
        r = browser.wait_for(lambda e: e.get("id") == "r" and e.get("event") in ("resolved", "resolveFailed"), 15,
                             what="resolution of the saved reference")
        if r["event"] != "resolved" or r.get("port") != 9090:
            raise Failure(f"the saved reference resolved to {r}, not port 9090")
        return [f"saved {saved}", f"resolved to the restarted publisher's port 9090 in {time.monotonic() - t0:.2f} s"]


DEMO_PUBLISHER = ["willPublish Demo Service", "didPublish Demo Service", "setTXTRecord Demo Service",
                  "didStop Demo Service"]
DEMO_BROWSER = ["willSearch", "didFind Demo Service moreComing=false", "willResolve Demo Service",
                "didResolve Demo Service", "didUpdateTXTRecord Demo Service",
                "didRemove Demo Service moreComing=false", "didStopSearch"]


@scenario("netservice", "a program written against NetService publishes, browses, resolves and stops")
def netservice(s: Suite) -> list[str]:
    """Examples/NetServiceDemo, written as for Foundation on Apple platforms, publishes "Demo
    Service" with TXT k=v, path=/x on n1 and browses on n2: its delegate callbacks must fire in
    the documented order, the resolution must carry host, port 8080, the TXT dictionary and
    addresses of both families; the publisher's TXT update must reach the browser, which monitors
    the service (didUpdateTXTRecord); and SIGINT must stop the publisher (didStop) and remove it
    from the browser (didRemove) before the browser stops (didStopSearch)."""
    if not s.demo_path:
        raise Failure("no NetServiceDemo executable (pass --demo PATH)")
    lines = lambda line: {"line": line.strip()}  # noqa: E731
    with s.lab("netservice", ["n1", "n2"]) as lab:
        n1, n2 = lab["n1"], lab["n2"]
        publisher = n1.spawn("publisher", s.demo_path, "publish", "Demo Service", "8080", "k=v", "path=/x",
                             parse=lines, stdin=False)
        publisher.wait_for(lambda e: e["line"].startswith("didPublish"), 10, what="didPublish")
        t0 = time.monotonic()
        browser = n2.spawn("browser", s.demo_path, "browse", "6", parse=lines, stdin=False)
        resolved = browser.wait_for(lambda e: e["line"].startswith("didResolve"), 10, what="didResolve")
        t_resolved = time.monotonic() - t0
        updated = browser.wait_for(lambda e: e["line"].startswith("didUpdateTXTRecord"), 10, what="didUpdateTXTRecord")
        if "updated=yes" not in updated["line"] or "k=v" not in updated["line"]:
            raise Failure(f"TXT update reported as {updated['line']}")
        publisher.proc.send_signal(signal.SIGINT)
        if publisher.wait_exit(10) != 0:
            raise Failure(f"publisher exit status {publisher.proc.returncode}\n{publisher.tail()}")
        if browser.wait_exit(15) != 0:
            raise Failure(f"browser exit status {browser.proc.returncode}\n{browser.tail()}")
        publisher.stop()
        browser.stop()
        got_publisher = [line.strip() for line in publisher.lines]
        got_browser = [line.strip() for line in browser.lines]
        problems = []
        if got_publisher != DEMO_PUBLISHER:
            problems.append(f"publisher callbacks {got_publisher}, expected {DEMO_PUBLISHER}")
        if [line.split(" host=")[0].split(" txt=")[0] for line in got_browser] != DEMO_BROWSER:
            problems.append(f"browser callbacks {got_browser}, expected {DEMO_BROWSER}")
        details = resolved["line"]
        for part in ("port=8080", "txt=k=v,path=/x", "IPv4", "IPv6", "host="):
            if part not in details:
                problems.append(f"didResolve lacks {part}: {details}")
        if problems:
            raise Failure("; ".join(problems))
        return [f"delegate callbacks in order on both sides; resolved {t_resolved:.2f} s after the browse began",
                details]



def explore_pane(s: Suite, host: Host, tag: str, width: int = 80, height: int = 24) -> Pane:
    """`ciao explore` running in `host`, in a tmux pane of its own."""
    if not s.ciao_path:
        raise Failure("no ciao executable (pass --ciao PATH)")
    return Pane(f"{s.prefix}-{tag}", host.argv(s.ciao_path, "explore"), s.workdir, width, height,
                env={"TERM": "xterm-256color", "LANG": "C.UTF-8"})


def txt_lines(txt: dict) -> list[str]:
    """How explore's details show a TXT dict ({key: hex or None}), entry by entry."""
    out = []
    for k, v in txt.items():
        if v is None:
            out.append(f"{k}  (flag)")
        elif v == "":
            out.append(f"{k}=  (empty)")
        else:
            b = bytes.fromhex(v)
            try:
                text = b.decode("utf-8")
                out.append(f"{k}={text}" if text.isprintable() else f"{k}=<{' '.join(f'{x:02x}' for x in b)}>  (hex)")
            except UnicodeDecodeError:
                out.append(f"{k}=<{' '.join(f'{x:02x}' for x in b)}>  (hex)")
    return out


def shown_txt(screen: str) -> list[str]:
    """The TXT entries the details column shows, in order."""
    lines = [l.split("│")[-1].strip() for l in screen.splitlines()]
    if not any(l.startswith("TXT (") for l in lines):
        return []
    start = next(i for i, l in enumerate(lines) if l.startswith("TXT ("))
    out = []
    for l in lines[start + 1:]:
        if not l or l.startswith("Last seen"):
            break
        out.append(l)
    return out


@scenario("explore", "ciao explore in tmux: peers' types, details, search, TXT update and removal; publish, edit, stop; terminal restored")
def explore(s: Suite) -> list[str]:
    """`ciao explore` at 80×24 in tmux beside avahi-daemon and python-zeroconf: the types come,
    the search filters, a zeroconf service's details match what it published byte for byte and
    follow its TXT update and removal; once zeroconf's host is unplugged, its other service,
    reconfirmed with r, is marked gone 10 s later; a service published from the publish view is resolved,
    updated and seen stopped by avahi-browse; q, SIGTERM, SIGHUP and SIGINT each withdraw the
    publication with goodbyes and restore the terminal, SIGTERM at once under endless input."""
    with s.lab("explore", ["ex", "av", "zc"]) as lab:
        ex, av, zch = lab["ex"], lab["av"], lab["zc"]
        ap, zc = publishing_peers(s, lab, av, zch, "Avahi Peer Ü", "Zeroconf Peer Ü")
        expect_published(zc, "o", "Other Thing", port=9002, type_="_ciaoother._tcp")
        ab = avahi_browse(av, "-r", "_ciaodemo._tcp")
        figures = []
        pane = explore_pane(s, ex, "explore")
        try:
            t0 = time.monotonic()
            pane.wait_for(lambda sc: TYPE in sc and "_ciaoother._tcp" in sc, 15)
            figures.append(f"types shown {time.monotonic() - t0:.2f} s")
            pane.keys("/")
            pane.type("ciaotest")
            pane.wait_for(lambda sc: TYPE in sc and "_ciaoother._tcp" not in sc, 5)
            pane.keys("Enter", "Enter")
            pane.wait_for(lambda sc: "Avahi Peer Ü" in sc and "Zeroconf Peer Ü" in sc, 10)
            pane.keys("Down", "Enter")
            sc = pane.wait_for(lambda sc: "Port: 9001" in sc and shown_txt(sc), 10)
            problems = []
            if shown_txt(sc) != txt_lines(TXT):
                problems.append(f"TXT shown {shown_txt(sc)} != published {txt_lines(TXT)}")
            for needle in (f"Host: {zch.name}-zc.local.", zch.v4, "Interface: civ0"):
                if needle not in sc:
                    problems.append(f"no {needle!r} in the details")
            if problems:
                raise Failure("; ".join(problems) + "\n" + sc)
            t1 = time.monotonic()
            zc.send(cmd="updateTXT", id="z", txt=TXT2)
            pane.wait_for(lambda sc: shown_txt(sc) == txt_lines(TXT2), 10)
            figures.append(f"peer TXT update shown {time.monotonic() - t1:.2f} s")
            zc.wait_for({"event": "txtUpdated", "id": "z"}, 5)   # an unpublish racing it would be undone
            t1 = time.monotonic()
            zc.send(cmd="unpublish", id="z")
            pane.wait_for("Gone at", 10)
            figures.append(f"peer removal shown {time.monotonic() - t1:.2f} s")
            # zc is unplugged: its other service, reconfirmed with r, is marked gone 10 s later.
            pane.keys("Left", "Left", "Escape", "Home", "Enter", "Enter")
            pane.wait_for(lambda sc: "Other Thing" in sc and "Port: 9002" in sc, 10)
            zch.unplug()
            t1 = time.monotonic()
            pane.keys("r")
            pane.wait_for("asking whether Other Thing is still there", 5)
            pane.wait_for(lambda sc: "Other Thing" in sc and "Gone at" in sc, 15)
            gone = time.monotonic() - t1
            if gone < 9.5:
                raise Failure(f"the unplugged peer's service was marked gone {gone:.2f} s after r, "
                              "before its reconfirmation could have been answered")
            figures.append(f"unplugged peer's service reconfirmed with r: gone {gone:.2f} s later")

            name = "Explore Pub Ü"
            pane.keys("Tab", "n")
            pane.wait_for("New publication", 5)
            pane.keys(*["BSpace"] * 20)
            pane.type(name)
            pane.keys("Tab", "Tab")
            pane.type("7777")
            pane.keys("Tab")
            pane.type(" a=1")
            t1 = time.monotonic()
            pane.keys("Enter")
            want = {"demo": b"1".hex(), "a": b"1".hex()}
            ar = ab.wait_for(lambda e: e["event"] == "resolved" and e["name"] == name and e["port"] == 7777
                             and e["txt"] == want, 10, what=f"avahi-browse resolving {name!r} with {want}")
            pane.wait_for(f"up as '{name}'", 5)
            figures.append(f"published service resolved by avahi {ar['t'] - t1:.2f} s")
            pane.keys("e")
            pane.wait_for("Edit TXT", 5)
            pane.type(" b=2")
            t1 = time.monotonic()
            pane.keys("Enter")
            want2 = dict(want, b=b"2".hex())
            seen = []
            while time.monotonic() - t1 < 10:
                seen = [e for e in avahi_browse_once(av, "-r", "_ciaodemo._tcp")
                        if e["event"] == "resolved" and e["name"] == name]
                if seen and all(e["txt"] == want2 for e in seen):
                    break
            else:
                raise Failure(f"avahi-browse never showed the edited TXT {want2}: last {seen}")
            figures.append(f"TXT edit seen by avahi {time.monotonic() - t1:.2f} s")
            mark = ab.mark()
            t1 = time.monotonic()
            pane.keys("s")
            ab.wait_for({"event": "removed", "name": name}, 3, after=mark, what="goodbye after stop")
            figures.append(f"stop seen by avahi {time.monotonic() - t1:.2f} s")
            mark = ab.mark()
            pane.keys("s")
            ab.wait_for({"event": "found", "name": name}, 10, after=mark, what="found again after restart")
            pane.wait_for(f"up as '{name}'", 10)
            mark = ab.mark()
            t1 = time.monotonic()
            pane.keys("q")
            rc = pane.exit_status(10)
            if rc != 0 or not pane.restored():
                raise Failure(f"after q: exit status {rc}, terminal restored {pane.restored()}\n{pane.screen()}")
            ab.wait_for({"event": "removed", "name": name}, 3, after=mark, what="goodbye after q")
            figures.append(f"q: goodbye seen {time.monotonic() - t1:.2f} s, terminal restored")
            if "explore-start" not in pane.screen():
                raise Failure(f"the screen under the program did not come back:\n{pane.screen()}")
        finally:
            pane.close()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            pane = explore_pane(s, ex, f"explore-{sig.name.lower()}")
            try:
                pane.wait_for(TYPE, 15)
                pane.keys("Tab", "n", "Enter")              # the demo service as the form offers it
                pane.wait_for("up as 'Ciao Demo 1'", 10)
                mark = ab.mark()
                os.kill(pane.pid(), sig)
                rc = pane.exit_status(10)
                if rc != 0 or not pane.restored():
                    raise Failure(f"after {sig.name}: exit status {rc}, terminal restored "
                                  f"{rc is not None and pane.restored()}\n{pane.screen()}")
                ab.wait_for({"event": "removed", "name": "Ciao Demo 1"}, 3, after=mark,
                            what=f"goodbye after {sig.name}")
            finally:
                pane.close()
        figures.append("SIGTERM, SIGHUP, SIGINT: goodbyes sent, exit 0, terminal restored")
        # Input without end (NULs, which no key means) waits in the pty, not in the program, and
        # a signal is heard at once. 64 MiB: more than the program reads in the 6 s, and a bound
        # on what the tmux server buffers for the pane.
        pane = explore_pane(s, ex, "explore-endless-input")
        try:
            pane.wait_for(TYPE, 15)
            pane.pipe_in("exec head -c 64M /dev/zero")
            resident = []
            for _ in range(3):
                time.sleep(2)
                resident.append(resident_kib(pane.pid()))
            t1 = time.monotonic()
            os.kill(pane.pid(), signal.SIGTERM)
            rc = pane.exit_status(10)
            if rc != 0 or not pane.restored():
                raise Failure(f"SIGTERM under endless input: exit status {rc}, terminal restored "
                              f"{rc is not None and pane.restored()}\n{pane.screen()}")
            figures.append(f"endless input: resident {', '.join(map(str, resident))} KiB 2 s apart; "
                           f"SIGTERM ended it in {time.monotonic() - t1:.2f} s")
        finally:
            pane.close()
        return figures


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--agent", required=True, help="path of the CiaoInteropAgent executable")
    a.add_argument("--ciao", default="", help="path of the ciao executable (scenario cli)")
    a.add_argument("--chat", default="", help="path of the Chat example's executable (scenario chat)")
    a.add_argument("--demo", default="", help="path of the NetServiceDemo example (scenario netservice)")
    a.add_argument("--mdnsresponder", default="", help="Apple's mDNSResponder built for Linux (bin/mdnsd, bin/dns-sd, lib/)")
    a.add_argument("--zeroconf-python", default=sys.executable, help="python with zeroconf installed")
    a.add_argument("--dbus-python", default="/usr/bin/python3", help="python with Debian's python3-dbus")
    a.add_argument("--prefix", default=f"ciaoint{os.getpid()}", help="namespace name prefix, unique per run")
    a.add_argument("--workdir", default=f"/tmp/ciao-interop.{os.getpid()}", help="logs and daemon state")
    args = parse_scenario_arguments(a, SCENARIOS)
    if args is None:
        return 0
    suite = Suite(args)

    def agents_ended_cleanly() -> None:
        # the lab stopped any agent still running with SIGTERM, which must end it like quit
        for agent in suite.agents:
            if agent.proc.returncode != 0:
                raise Failure(f"{agent.name} exited with status {agent.proc.returncode} (SIGTERM or quit "
                              f"must end it with 0)\n{agent.tail(40)}")

    def show_agents(rest: str) -> None:
        for agent in suite.agents:
            if agent.name not in rest:
                print(agent.tail(40), flush=True)

    def reset() -> None:
        suite.agents = []

    return run_scenarios(SCENARIOS, args.scenarios, suite, args.workdir, "interop", before=reset,
                         after=agents_ended_cleanly, on_failure=show_agents)


if __name__ == "__main__":
    sys.exit(main())
