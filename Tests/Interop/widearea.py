#!/usr/bin/env python3
"""Ciao's wide-area DNS-SD suite: `ciao` against a real BIND 9 (see bind.py), with avahi-daemon's
wide-area browsing measured beside it, on a private lab of namespaces (see lab.py). Run through
Scripts/wide-area.sh, as root.

    widearea.py --ciao PATH [--agent PATH] [--prefix P] [--workdir D] [SCENARIO ...]

Hosts: `dns` (named, 198.18.0.1), `client` (ciao, avahi-daemon with wide-area on, and nsupdate),
`peer` (a second registrant). Every scenario prints "PASS name: figures", "FAIL name: reason" or
"SKIP name: why"; the closing line is "wide-area: N passed, M failed". Scenarios that need a ciao
feature this build lacks say SKIP and name it.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bind  # noqa: E402
from lab import IFNAME, V4NET, V6NET, Failure, Host, JsonProc, Lab  # noqa: E402
from runner import Skip, parse_scenario_arguments, run_scenarios  # noqa: E402


class Suite:
    def __init__(self, args):
        self.ciao = args.ciao
        self.agent = args.agent
        self.prefix = args.prefix
        self.workdir = args.workdir
        self.has_server_option = {
            command: "--server" in subprocess.run([self.ciao, command, "--help"], capture_output=True, text=True).stdout
            for command in ("browse", "types", "resolve", "publish")
        }

    def lab(self, name: str) -> tuple[Lab, JsonProc, bind.WideAreaZone]:
        lab = Lab(f"{self.prefix}{name[:4]}", os.path.join(self.workdir, name), ["dns", "client", "peer"])
        try:
            named, zone = bind.start_named(lab["dns"])
        except BaseException:
            lab.close()
            raise
        return lab, named, zone

    def need_ciao(self, *commands: str) -> None:
        for command in commands or ("browse",):
            if not self.has_server_option[command]:
                raise Skip(f"this ciao has no wide-area {command} (ciao {command} --server)")

    def ciao_argv(self, command: str, *args: str, server: Host) -> list[str]:
        return [self.ciao, command, "--server", server.v4, *args]


# ---------------------------------------------------------------------------- helpers

def nsupdate(host: Host, server: Host, commands: list[str], key: str | None) -> tuple[int, str]:
    """Send one UPDATE with nsupdate from `host` (signed with the key file `key` if given)."""
    script = f"server {server.v4}\nzone {bind.DOMAIN}\n" + "\n".join(commands) + "\nsend\n"
    argv = ["timeout", "10", "nsupdate"] + (["-k", key] if key else [])
    r = subprocess.run(host.argv(*argv), input=script, capture_output=True, text=True, timeout=15)
    return r.returncode, (r.stdout + r.stderr).strip()


def nsupdate_service(host: Host, server: Host, key: str, type_: str, label: str, ttl: int | None) -> None:
    """Add service `label` (zone-file syntax) of `type_` in the lab's domain, at `ttl`, with SRV
    to the printer's host and TXT "v=1"; with `ttl` None, delete it (its PTR and every RRset)."""
    inst = f"{label}.{type_}.{bind.DOMAIN}"
    commands = ([f"update add {type_}.{bind.DOMAIN} {ttl} PTR {inst}",
                 f"update add {inst} {ttl} SRV 0 0 7 printer.{bind.DOMAIN}",
                 f'update add {inst} {ttl} TXT "v=1"'] if ttl is not None else
                [f"update delete {type_}.{bind.DOMAIN} PTR {inst}", f"update delete {inst}"])
    rc, out = nsupdate(host, server, commands, key)
    if rc != 0:
        raise Failure(f"nsupdate {'add' if ttl is not None else 'delete'} of {label} failed: {out}")


def axfr(host: Host, server: Host) -> list[str]:
    """The zone as AXFR gives it, one record per line, in dig's canonical presentation."""
    out = host.run("dig", f"@{server.v4}", "+nocmd", "+nostats", "+onesoa", "AXFR", bind.DOMAIN)
    return sorted(" ".join(l.split()) for l in out.splitlines() if l and not l.startswith(";"))


def key_path(lab: Lab, name: str) -> str:
    return os.path.join(lab["dns"].dir, "named", name)


def avahi_wide_area(lab: Lab, host: Host, server: Host) -> JsonProc:
    """avahi-daemon on `host` with wide-area browsing on and the lab's server as its resolver."""
    with open(os.path.join(host.dir, "resolv.conf"), "w") as f:
        f.write(f"nameserver {server.v4}\n")
    return lab.start_avahi(host, wide_area_resolver=os.path.join(host.dir, "resolv.conf"))


def run_to_end(host: Host, argv: list[str], timeout: float = 30) -> tuple[float, list[str]]:
    t0 = time.monotonic()
    r = subprocess.run(host.argv(*argv), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise Failure(f"{' '.join(argv)} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    return time.monotonic() - t0, r.stdout.splitlines()


# ---------------------------------------------------------------------------- scenarios

def scenario_zone(s: Suite) -> list[str]:
    """The lab's server itself: the zone, the key, the policy, as the other scenarios rely on."""
    lab, named, _ = s.lab("zone")
    with lab:
        client, dns = lab["client"], lab["dns"]
        records = axfr(client, dns)
        # dig writes "." inside a label as "\\."; the zone file wrote it as \\046
        printer = bind.zone_label(bind.PRINTER).replace("\\046", "\\.")
        for want in (f"{printer}._http._tcp.{bind.DOMAIN} 300 IN SRV 0 0 8080 printer.{bind.DOMAIN}",
                     f"_services._dns-sd._udp.{bind.DOMAIN} 300 IN PTR _http._tcp.{bind.DOMAIN}"):
            if want not in records:
                raise Failure(f"AXFR has no {want}:\n" + "\n".join(r for r in records if "bench" not in r))
        rc, out = nsupdate(client, dns, [f"update add probe._http._tcp.{bind.DOMAIN} 10 TXT \"x\""], None)
        if rc == 0 or "REFUSED" not in out:
            raise Failure(f"an unsigned update was not refused: {out}")
        rc, out = nsupdate(client, dns, [f"update add probe._http._tcp.{bind.DOMAIN} 10 TXT \"x\""],
                           key_path(lab, "wrong.key"))
        if rc == 0:
            raise Failure(f"an update signed with a wrong secret was accepted: {out}")
        rc, out = nsupdate(client, dns, [f"update add ns.{bind.DOMAIN} 10 TXT \"x\""], key_path(lab, "ciao-lab.key"))
        if rc == 0 or "REFUSED" not in out:
            raise Failure(f"the policy let the key write ns.{bind.DOMAIN}: {out}")
        rc, out = nsupdate(client, dns, [f"update add probe._http._tcp.{bind.DOMAIN} 10 TXT \"x\""],
                           key_path(lab, "ciao-lab.key"))
        if rc != 0:
            raise Failure(f"a signed update within the policy failed: {out}")
        if f"probe._http._tcp.{bind.DOMAIN} 10 IN TXT \"x\"" not in axfr(client, dns):
            raise Failure("the signed update is not in the zone")
        return [f"{len(records)} records by AXFR", "unsigned → REFUSED", "wrong secret → rejected",
                "outside the policy → REFUSED", "signed → in the zone"]


def scenario_browse(s: Suite) -> list[str]:
    """ciao browse -d -r -t -p of the static services, line for line beside avahi-browse -d."""
    s.need_ciao()
    lab, named, _ = s.lab("browse")
    with lab:
        client, dns = lab["client"], lab["dns"]
        avahi_wide_area(lab, client, dns)
        elapsed, ciao_lines = run_to_end(client, s.ciao_argv("browse", "-d", bind.DOMAIN, "-r", "-t", "-p", "-k",
                                                             "_http._tcp", server=dns))
        _, avahi_lines = run_to_end(client, ["avahi-browse", "-d", bind.DOMAIN.rstrip("."), "-r", "-t", "-p", "-k",
                                             "_http._tcp"])
        resolved = [l for l in ciao_lines if l.startswith("=")]
        if len({l.split(";")[3] for l in resolved}) != 2:
            raise Failure("ciao did not resolve the 2 services:\n" + "\n".join(ciao_lines))
        txt = next((l for l in resolved if "path=/" in l), "")
        for part in ('"path=/"', '"flag"', '"empty="', '"bin=\\000\\255\\008"', ";printer.lab.example;", ";8080;"):
            if part not in txt:
                raise Failure(f"ciao's line for {bind.PRINTER!r} lacks {part}: {txt}")
        # avahi resolves one address per service (its first); ciao prints a line per address
        missing = [l for l in avahi_lines if l not in ciao_lines]
        if missing:
            raise Failure("lines avahi-browse -d printed and ciao did not:\n" + "\n".join(missing)
                          + "\nciao printed:\n" + "\n".join(ciao_lines))
        t0 = time.monotonic()
        if s.has_server_option["resolve"]:
            _, resolved_lines = run_to_end(client, s.ciao_argv("resolve", bind.PRINTER, "_http._tcp", bind.DOMAIN, "-p", "-k",
                                                               server=dns))
            if resolved_lines != [txt]:
                raise Failure(f"ciao resolve printed {resolved_lines}, not the browse's line {txt}")
        resolve_ms = (time.monotonic() - t0) * 1000
        return [f"2 services resolved in {elapsed * 1000:.0f} ms (whole process)",
                f"all {len(avahi_lines)} lines of avahi-browse -d -r -t -p are among ciao's {len(ciao_lines)}",
                f"ciao resolve of {bind.PRINTER!r}: the same line in {resolve_ms:.0f} ms"]


def scenario_types_and_subtype(s: Suite) -> list[str]:
    """Type enumeration in the domain and a subtype browse."""
    s.need_ciao("browse", "types")
    lab, named, _ = s.lab("types")
    with lab:
        client, dns = lab["client"], lab["dns"]
        _, types = run_to_end(client, s.ciao_argv("types", "-d", bind.DOMAIN, "-t", "-p", server=dns))
        found = sorted(l.split(";")[0] for l in types if l.endswith(";" + bind.DOMAIN.rstrip(".")))
        want = sorted(["_http._tcp", "_ipp._tcp", bind.BENCH_TYPE, bind.LIVE_TYPE])
        if found != want:
            raise Failure(f"types: {found}, not {want}\n" + "\n".join(types))
        _, sub = run_to_end(client, s.ciao_argv("browse", "-d", bind.DOMAIN, "-t", "-p", "-k",
                                                "_printer._sub._http._tcp", server=dns))
        names = [l.split(";")[3] for l in sub if l.startswith("+")]
        if len(names) != 1 or "Plain" in names[0]:
            raise Failure(f"subtype browse found {names}, not the printer alone")
        # the same over IPv6 to the server's IPv6 address
        _, types6 = run_to_end(client, [s.ciao, "types", "--server", dns.v6, "-d", bind.DOMAIN, "-t", "-p"])
        if sorted(types6) != sorted(types):
            raise Failure(f"types through {dns.v6}: {types6}, not {types}")
        return [f"types {', '.join(found)}", f"_printer subtype: {names[0]}", f"the same types through {dns.v6}"]


def scenario_live(s: Suite) -> list[str]:
    """A running browse sees nsupdate's registration and its removal; avahi-browse -d beside it."""
    s.need_ciao()
    lab, named, _ = s.lab("live")
    with lab:
        client, dns = lab["client"], lab["dns"]
        avahi_wide_area(lab, client, dns)
        parse = lambda l: {"line": l, "sign": l[:1], "name": l.split(";")[3] if l.count(";") >= 3 else ""}
        ciao = client.spawn("ciao-browse", *s.ciao_argv("browse", "-d", bind.DOMAIN, "-r", "-p", "-k", bind.LIVE_TYPE,
                                                        server=dns), parse=parse, stdin=False)
        started = time.monotonic()
        avahi = client.spawn("avahi-browse", "avahi-browse", "-d", bind.DOMAIN.rstrip("."), "-p", "-k", bind.LIVE_TYPE,
                             parse=parse, stdin=False)
        ciao.wait_for({"sign": "+", "name": "Anchor"}, 10, what="the anchor service")
        try:
            avahi.wait_for({"sign": "+", "name": "Anchor"}, 10)
            avahi_saw_anchor = True
        except Failure:
            avahi_saw_anchor = False
        key = key_path(lab, "ciao-lab.key")
        nsupdate_service(client, dns, key, bind.LIVE_TYPE, "Live\\032One", 10)
        t0 = time.monotonic()
        mark = avahi.mark()
        ciao.wait_for({"sign": "+", "name": "Live\\032One"}, 30, what="the service nsupdate added")
        added = time.monotonic() - t0
        nsupdate_service(client, dns, key, bind.LIVE_TYPE, "Live\\032One", None)
        t1 = time.monotonic()
        ciao.wait_for({"sign": "-", "name": "Live\\032One"}, 30, what="the removal of the service")
        removed = time.monotonic() - t1
        avahi_saw = any(e.get("name") == "Live\\032One" for e in avahi.select(lambda e: True, after=mark))
        # steady state: the queries named logged from ciao's address, per service and hour, with
        # the anchor's records at TTL 10 (rounds every 10-11 s)
        window = time.monotonic() - started
        queries = sum(1 for e in named.select(lambda e: True)
                      if f"client @" in e.get("line", "") and f" {client.v4}#" in e.get("line", "")
                      and "query:" in e.get("line", ""))
        per_hour = queries / window * 3600
        return [f"ciao: added seen in {added:.1f} s, removal in {removed:.1f} s (refresh bound 10 s + jitter)",
                f"avahi-browse -d: anchor {'seen' if avahi_saw_anchor else 'not seen'}, "
                f"the added service {'seen' if avahi_saw else 'never seen'}",
                f"named logged {queries} queries from ciao browse -r in {window:.0f} s ({per_hour:.0f}/h) for 1 to 2 "
                "services at TTL 10: per round 1 PTR and 2 per service (SRV, TXT); A and AAAA (TTL 300) at 75 % of their TTL"]


def scenario_bench(s: Suite) -> list[str]:
    """Browse → all resolved for the 200 services of _bench._tcp (a figure, not a timed check)."""
    s.need_ciao()
    lab, named, _ = s.lab("bench")
    with lab:
        client, dns = lab["client"], lab["dns"]
        figures = []
        for run in range(3):
            elapsed, lines = run_to_end(client, s.ciao_argv("browse", "-d", bind.DOMAIN, "-r", "-t", "-p", "-k",
                                                            bind.BENCH_TYPE, server=dns), timeout=60)
            resolved = {l.split(";")[3] for l in lines if l.startswith("=")}
            if len(resolved) != bind.BENCH_COUNT:
                raise Failure(f"run {run}: {len(resolved)} of {bind.BENCH_COUNT} resolved")
            figures.append(elapsed)
        return [f"{bind.BENCH_COUNT} services browsed and resolved in "
                + ", ".join(f"{f * 1000:.0f}" for f in figures) + " ms (3 runs, whole process)"]


def ours(records: list[str], *names: str) -> list[str]:
    """The AXFR lines whose owner or data names one of `names`."""
    return [r for r in records if any(n in r for n in names)]


def scenario_register(s: Suite) -> list[str]:
    """ciao publish -d: a signed registration, a second registrant renamed, a third refused
    (--no-rename), exact deletion, bad keys."""
    s.need_ciao("publish")
    lab, named, _ = s.lab("register")
    with lab:
        client, peer, dns = lab["client"], lab["peer"], lab["dns"]
        parse = lambda l: json.loads(l) if l.startswith("{") else {"line": l}
        key, other = key_path(lab, "ciao-lab.key"), key_path(lab, "other-lab.key")
        publish = lambda host, name, key_file, label, *extra: host.spawn(
            name, s.ciao, "publish", "-d", bind.DOMAIN, "--server", dns.v4, "--key", key_file, "--host", label,
            "--json", *extra, "Ciao Reg", "_http._tcp", "8080", "k=v", parse=parse, stdin=False)
        t0 = time.monotonic()
        first = publish(client, "publish-1", key, "ciao-host")
        first.wait_for({"event": "published"}, 15, what="the registration")
        registered = time.monotonic() - t0
        t1 = time.monotonic()
        srv = client.run("dig", f"@{dns.v4}", "+short", "SRV", f"Ciao\\032Reg._http._tcp.{bind.DOMAIN}")
        visible = time.monotonic() - t1
        zone = axfr(client, dns)
        mine = ours(zone, "Ciao\\032Reg.", "ciao-host.")
        want = sorted([
            f"_http._tcp.{bind.DOMAIN} 120 IN PTR Ciao\\032Reg._http._tcp.{bind.DOMAIN}",
            f"Ciao\\032Reg._http._tcp.{bind.DOMAIN} 120 IN SRV 0 0 8080 ciao-host.{bind.DOMAIN}",
            f'Ciao\\032Reg._http._tcp.{bind.DOMAIN} 120 IN TXT "k=v"',
            f"ciao-host.{bind.DOMAIN} 120 IN A {client.v4}",
            f"ciao-host.{bind.DOMAIN} 120 IN AAAA {client.v6}",
        ])
        if mine != want or "8080" not in srv:
            raise Failure("the zone after registering holds:\n" + "\n".join(mine) + "\nnot:\n" + "\n".join(want))
        second = publish(peer, "publish-2", other, "other-host")
        renamed = second.wait_for({"event": "published"}, 15, what="the second registration")
        if renamed.get("name") != "Ciao Reg (2)":
            raise Failure(f"the second registrant was published as {renamed.get('name')!r}, not 'Ciao Reg (2)'")
        theirs = ours(axfr(client, dns), "Ciao\\032Reg\\032\\(2\\).", "other-host.")
        if len(theirs) != 5:
            raise Failure("the second registrant's records are not its 5:\n" + "\n".join(theirs))
        before_strict = axfr(client, dns)
        strict = subprocess.run(client.argv(s.ciao, "publish", "-d", bind.DOMAIN, "--server", dns.v4, "--key", other,
                                            "--host", "other-host", "--no-rename", "Ciao Reg", "_http._tcp", "8081"),
                                capture_output=True, text=True, timeout=30)
        if strict.returncode != 1 or "-65548" not in strict.stderr:
            raise Failure(f"a third registrant with --no-rename: exit {strict.returncode}, {strict.stderr.strip()}")
        if axfr(client, dns) != before_strict:
            raise Failure("the refused --no-rename registration changed the zone")
        first.proc.send_signal(signal.SIGINT)
        if first.wait_exit(10) != 0:
            raise Failure(f"ciao publish exited {first.proc.returncode} after SIGINT\n{first.tail()}")
        after = axfr(client, dns)
        if ours(after, "Ciao\\032Reg.", "ciao-host.") or ours(after, "Ciao\\032Reg\\032\\(2\\).", "other-host.") != theirs:
            raise Failure("after the first stopped the zone holds:\n" + "\n".join(ours(after, "Ciao", "host.")))
        wrong = subprocess.run(client.argv(s.ciao, "publish", "-d", bind.DOMAIN, "--server", dns.v4, "--key",
                                           key_path(lab, "wrong.key"), "--host", "ciao-host", "Bad Key", "_http._tcp",
                                           "80"), capture_output=True, text=True, timeout=30)
        if wrong.returncode != 1 or "BADSIG" not in wrong.stderr:
            raise Failure(f"a wrongly signed registration: exit {wrong.returncode}, {wrong.stderr.strip()}")
        outside = subprocess.run(client.argv(s.ciao, "publish", "-d", bind.DOMAIN, "--server", dns.v4, "--key", key,
                                             "--host", "ciao-host", "Outside", "_ipp._tcp", "631"),
                                 capture_output=True, text=True, timeout=30)
        if outside.returncode != 1 or "REFUSED" not in outside.stderr:
            raise Failure(f"a registration outside the policy: exit {outside.returncode}, {outside.stderr.strip()}")
        return [f"registered in {registered * 1000:.0f} ms (process start to reply), visible to dig in "
                f"{visible * 1000:.0f} ms; the zone holds exactly its 5 records",
                "a second registrant became 'Ciao Reg (2)'; a third with --no-rename failed (-65548, exit 1) "
                "and changed nothing; SIGINT deleted exactly the first's records",
                "wrong secret → BADSIG, exit 1; outside the update-policy → REFUSED, exit 1"]


def scenario_lease(s: Suite) -> list[str]:
    """ciao publish -d against a server that grants Update Leases: refreshed at 80-85 % of each."""
    s.need_ciao("publish")
    lab, named, _ = s.lab("lease")
    with lab:
        client, peer = lab["client"], lab["peer"]
        lease = 20
        server = peer.spawn("leaseserver", sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                        "leaseserver.py"),
                            "--address", peer.v4, "--zone", bind.DOMAIN, "--key-name", bind.KEY_NAME,
                            "--secret", bind.KEY_SECRET, "--lease", str(lease), stdin=False)
        server.wait_for({"event": "listening"}, 10)
        parse = lambda l: json.loads(l) if l.startswith("{") else {"line": l}
        publish = client.spawn("publish", s.ciao, "publish", "-d", bind.DOMAIN, "--server", peer.v4, "--key",
                               key_path(lab, "ciao-lab.key"), "--host", "ciao-host", "--json", "Lease Test",
                               "_http._tcp", "8080", parse=parse, stdin=False)
        publish.wait_for({"event": "published"}, 15, what="the registration the lease server signed")
        server.wait_all({"event": "update"}, 3, 2 * lease + 10, key="t")
        updates = server.select({"event": "update"})
        if any(u["leaseAsked"] is None or not u["signed"] or u["deletes"] for u in updates[:3]):
            raise Failure(f"the registration and its refreshes were not signed UPDATEs asking for a lease: {updates}")
        gaps = [b["t"] - a["t"] for a, b in zip(updates, updates[1:3])]
        if any(not 0.8 * lease - 0.5 <= g <= 0.85 * lease + 1.0 for g in gaps):
            raise Failure(f"refreshes {', '.join(f'{g:.1f}' for g in gaps)} s apart, not at 80-85 % of {lease} s")
        publish.proc.send_signal(signal.SIGINT)
        if publish.wait_exit(10) != 0:
            raise Failure(f"ciao publish exited {publish.proc.returncode} after SIGINT\n{publish.tail()}")
        last = server.select({"event": "update"})[-1]
        if not last["deletes"]:
            raise Failure(f"the clean stop sent no deleting UPDATE: {last}")
        return [f"lease {lease} s granted; refreshed after {', '.join(f'{g:.1f}' for g in gaps)} s "
                f"(80-85 %: {0.8 * lease:.0f}-{0.85 * lease:.0f} s); lease asked {updates[0]['leaseAsked']} s; "
                "every reply signed and verified; SIGINT deleted"]


def scenario_api(s: Suite) -> list[str]:
    """Ciao's public API (the interop agent) in lab.example., asking the servers of its resolv.conf."""
    if not s.agent:
        raise Skip("no CiaoInteropAgent given (--agent)")
    lab, named, _ = s.lab("api")
    with lab:
        client, dns = lab["client"], lab["dns"]
        resolv = os.path.join(client.dir, "resolv.conf")
        with open(resolv, "w") as f:
            f.write(f"nameserver {dns.v4}\nsearch {bind.DOMAIN}\n")
        # the agent reads /etc/resolv.conf as any program does: a private mount namespace gives it the lab's
        agent = client.spawn("agent", "unshare", "-m", "--propagation", "private", "sh", "-c",
                             'mount --bind "$1" /etc/resolv.conf && exec "$2"', "sh", resolv, s.agent)
        hexed = lambda b: b.hex()
        want_txt = {"path": hexed(b"/"), "bin": "00ff08", "flag": None, "empty": ""}
        problems = lambda e: [f"{k} {e.get(k)!r}, not {v!r}" for k, v in (
            ("host", f"printer.{bind.DOMAIN}"), ("port", 8080), ("txt", want_txt), ("domain", bind.DOMAIN))
            if e.get(k) != v]
        t0 = time.monotonic()
        agent.send(cmd="browse", id="b", type="_http._tcp", domain=bind.DOMAIN)
        found = agent.wait_for({"id": "b", "event": "resolved", "name": bind.PRINTER}, 15,
                               what=f"CiaoBrowser resolving {bind.PRINTER!r} in {bind.DOMAIN}")
        browse_ms = (time.monotonic() - t0) * 1000
        if problems(found) or not found.get("addresses"):
            raise Failure(f"CiaoBrowser resolved {bind.PRINTER!r} wrongly: {problems(found)} {found}")
        t1 = time.monotonic()
        agent.send(cmd="resolve", id="r", name=bind.PRINTER, type="_http._tcp", domain=bind.DOMAIN, timeout=10)
        one = agent.wait_for(lambda e: e.get("id") == "r" and e["event"] in ("resolved", "resolveFailed"), 15)
        resolve_ms = (time.monotonic() - t1) * 1000
        if one["event"] != "resolved" or problems(one) or one.get("addresses") != found.get("addresses"):
            raise Failure(f"CiaoResolver.resolve gave {one}, not what the browse resolved {found}")
        # named says NXDOMAIN for its SRV: the resolution fails at once with that, not timedOut at 10 s
        agent.send(cmd="resolve", id="gone", name="Nobody Here", type="_http._tcp", domain=bind.DOMAIN, timeout=10)
        t2 = time.monotonic()
        gone = agent.wait_for(lambda e: e.get("id") == "gone" and e["event"] in ("resolved", "resolveFailed"), 20)
        gone_s = time.monotonic() - t2
        if gone["event"] != "resolveFailed" or gone_s > 5 or "no SRV record" not in gone.get("message", ""):
            raise Failure(f"resolving a service not in the zone gave {gone} after {gone_s:.1f} s (timeout 10 s)")
        # automatic resolution times out in the backend: Ghost (a PTR without SRV) fails, the printer does not
        t3 = time.monotonic()
        agent.send(cmd="browse", id="g", type="_ipp._tcp", domain=bind.DOMAIN, resolutionTimeout=2)
        ghost = agent.wait_for({"id": "g", "event": "resolutionFailed", "name": "Ghost"}, 10,
                               what="CiaoBrowser failing to resolve Ghost, a PTR without SRV, within 2 s")
        ghost_s = time.monotonic() - t3
        agent.wait_for({"id": "g", "event": "resolved", "name": "Office Printer"}, 10)
        failed = [e["name"] for e in agent.select({"id": "g", "event": "resolutionFailed"})]
        if failed != ["Ghost"] or not 2 <= ghost_s < 4.5:
            raise Failure(f"browsing _ipp._tcp with a 2 s resolution timeout: {failed} failed after {ghost_s:.1f} s")
        agent.send(cmd="stopBrowse", id="g")
        agent.send(cmd="types", id="t", domain=bind.DOMAIN)
        want_types = sorted(["_http._tcp", "_ipp._tcp", bind.BENCH_TYPE, bind.LIVE_TYPE])
        agent.wait_all({"id": "t", "event": "type"}, len(want_types), 15, key="type")
        types = sorted(e["type"] for e in agent.select({"id": "t", "event": "type"}))
        if types != want_types:
            raise Failure(f"ServiceTypeSession listed {types}, not {want_types}")
        # DiscoverySession.reconfirm: a service deleted from the zone, whose PTR the browse would ask
        # for again only 48 minutes on (80 % of its TTL), is removed at once
        key = key_path(lab, "ciao-lab.key")
        nsupdate_service(client, dns, key, bind.LONG_TYPE, "Deleted\\032Soon", 3600)
        nsupdate_service(client, dns, key, bind.LONG_TYPE, "Moved\\032Soon", 3600)
        agent.send(cmd="browse", id="l", type=bind.LONG_TYPE, domain=bind.DOMAIN)
        saved = agent.wait_for({"id": "l", "event": "found", "name": "Deleted Soon"}, 15)["saved"]
        moving_saved = agent.wait_for({"id": "l", "event": "found", "name": "Moved Soon"}, 15)["saved"]
        moving = agent.wait_for({"id": "l", "event": "resolved", "name": "Moved Soon"}, 15)
        nsupdate_service(client, dns, key, bind.LONG_TYPE, "Deleted\\032Soon", None)
        time.sleep(3)
        if agent.select({"id": "l", "event": "removed"}):
            raise Failure("the deleted service was removed before its reconfirmation")
        t4 = time.monotonic()
        agent.send(cmd="reconfirm", id="l", saved=saved)
        agent.wait_for({"id": "l", "event": "removed", "name": "Deleted Soon"}, 5,
                       what="the deleted service removed after its reconfirmation")
        reconfirm_ms = (time.monotonic() - t4) * 1000
        # and a service whose SRV record moved to another port is resolved anew at once, not when
        # its resolution would next ask, 48 minutes on
        moved_inst = f"Moved\\032Soon.{bind.LONG_TYPE}.{bind.DOMAIN}"
        rc, out = nsupdate(client, dns, [f"update delete {moved_inst} SRV",
                                         f"update add {moved_inst} 3600 SRV 0 0 8 printer.{bind.DOMAIN}"], key)
        if rc != 0 or moving.get("port") != 7:
            raise Failure(f"moving Moved Soon from port 7 ({moving}) to 8: nsupdate {rc} {out}")
        time.sleep(3)
        if agent.select({"id": "l", "event": "resolved", "name": "Moved Soon", "port": 8}):
            raise Failure("the moved service was resolved anew before its reconfirmation")
        t5 = time.monotonic()
        agent.send(cmd="reconfirm", id="l", saved=moving_saved)
        agent.wait_for({"id": "l", "event": "resolved", "name": "Moved Soon", "port": 8}, 5,
                       what="the moved service resolved to its new port after its reconfirmation")
        moved_ms = (time.monotonic() - t5) * 1000
        agent.send(cmd="stopBrowse", id="l")
        nsupdate_service(client, dns, key, bind.LONG_TYPE, "Moved\\032Soon", None)
        # CiaoServer: register, update TXT, deregister; the zone by AXFR after each step
        inst = f"Ciao\\032API._http._tcp.{bind.DOMAIN}"
        records = lambda txt: sorted([
            f"_http._tcp.{bind.DOMAIN} 120 IN PTR {inst}",
            f"{inst} 120 IN SRV 0 0 8081 ciao-host.{bind.DOMAIN}",
            f'{inst} 120 IN TXT "{txt}"',
            f"ciao-host.{bind.DOMAIN} 120 IN A {client.v4}",
            f"ciao-host.{bind.DOMAIN} 120 IN AAAA {client.v6}",
        ])
        mine = lambda: ours(axfr(client, dns), "Ciao\\032API.", "ciao-host.")
        t3 = time.monotonic()
        agent.send(cmd="publish", id="p", name="Ciao API", type="_http._tcp", port=8081, domain=bind.DOMAIN,
                   keyFile=key, host="ciao-host", txt={"k": hexed(b"v")})
        published = agent.wait_for(lambda e: e.get("id") == "p" and e["event"] in ("published", "publishFailed"), 15)
        publish_ms = (time.monotonic() - t3) * 1000
        if published["event"] != "published" or published.get("host") != f"ciao-host.{bind.DOMAIN}":
            raise Failure(f"CiaoServer.start in {bind.DOMAIN}: {published}")
        if mine() != records("k=v"):
            raise Failure("after CiaoServer.start the zone holds:\n" + "\n".join(mine()))
        agent.send(cmd="updateTXT", id="p", txt={"k": hexed(b"w")})
        agent.wait_for({"id": "p", "event": "txtUpdated"}, 10)
        deadline = time.monotonic() + 5
        while mine() != records("k=w"):
            if time.monotonic() > deadline:
                raise Failure("5 s after updateTXT the zone holds:\n" + "\n".join(mine()))
            time.sleep(0.1)
        agent.send(cmd="unpublish", id="p")
        agent.wait_for({"id": "p", "event": "unpublished"}, 15)
        if mine():
            raise Failure("after CiaoServer.stop returned the zone still holds:\n" + "\n".join(mine()))
        agent.send(cmd="publish", id="u", name="No Key Policy", type="_ipp._tcp", port=631, domain=bind.DOMAIN,
                   keyFile=key, host="ciao-host")
        refused = agent.wait_for(lambda e: e.get("id") == "u" and e["event"] in ("published", "publishFailed"), 15)
        if refused["event"] != "publishFailed" or "REFUSED" not in refused.get("message", ""):
            raise Failure(f"a start outside the update-policy gave {refused}")
        return [f"CiaoBrowser in {bind.DOMAIN}: {bind.PRINTER!r} found and resolved exactly in {browse_ms:.0f} ms; "
                f"CiaoResolver.resolve {resolve_ms:.0f} ms; a missing service fails after {gone_s:.1f} s (timeout 10 s): "
                f"{gone['message'].split(': ', 1)[-1][:60]}",
                f"automatic resolution of a PTR without SRV fails after {ghost_s:.1f} s (resolutionTimeout 2 s); "
                "the printer beside it resolves",
                f"ServiceTypeSession: {', '.join(types)}",
                f"DiscoverySession.reconfirm of a service deleted from the zone (TTL 3600): removed in "
                f"{reconfirm_ms:.0f} ms, after 3 s without a removal; of a service whose SRV moved to another "
                f"port: resolved anew in {moved_ms:.0f} ms, after 3 s without",
                f"CiaoServer.start registered in {publish_ms:.0f} ms; the zone held exactly its 5 records after start, "
                "updateTXT and none after stop; outside the policy → publishFailed REFUSED"]


def with_resolv_conf(host: Host, name: str, text: str, *argv: str) -> list[str]:
    """argv run in `host` with /etc/resolv.conf replaced by `text` in a private mount namespace."""
    path = os.path.join(host.dir, name)
    with open(path, "w") as f:
        f.write(text)
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"',
            "sh", path, *argv]


def scenario_domains(s: Suite) -> list[str]:
    """ciao domains: browsing and registration domains from the search list, and from the reverse zone alone."""
    s.need_ciao("browse")
    if "domains" not in subprocess.run([s.ciao, "--help"], capture_output=True, text=True).stdout:
        raise Skip("this ciao has no domains command")
    lab, named, _ = s.lab("domains")
    with lab:
        client, dns = lab["client"], lab["dns"]
        lab_domain = "+;n/a;n/a;" + bind.DOMAIN.rstrip(".")
        figures = []
        for label, resolv, registration, want in (
                ("search list", f"nameserver {dns.v4}\nsearch {bind.DOMAIN}\n", False, ["+;n/a;n/a;local", lab_domain]),
                ("search list", f"nameserver {dns.v4}\nsearch {bind.DOMAIN}\n", True, ["+;n/a;n/a;local", lab_domain]),
                ("reverse zone alone", f"nameserver {dns.v4}\n", False, ["+;n/a;n/a;local", lab_domain]),
                ("reverse zone alone", f"nameserver {dns.v4}\n", True, ["+;n/a;n/a;local"])):
            mark = named.mark()
            argv = with_resolv_conf(client, f"resolv-{len(figures)}.conf", resolv, s.ciao, "domains", "-t", "-p",
                                    *(["-R"] if registration else []))
            elapsed, lines = run_to_end(client, argv)
            if lines != want:
                raise Failure(f"ciao domains{' -R' if registration else ''} with the {label}: {lines}, not {want}")
            asked = sorted({m.group(1) for e in named.select(lambda e: True, after=mark)
                            for m in [re.search(r"query: (\S+) IN PTR", e.get("line", ""))] if m})
            if label == "reverse zone alone" and any(bind.DOMAIN.rstrip(".") in a for a in asked):
                raise Failure(f"without a search list ciao still asked under {bind.DOMAIN}: {asked}")
            if any("fe80" in a or "254.169" in a or "127.in-addr" in a for a in asked):
                raise Failure(f"ciao asked under a link-local or loopback reverse name: {asked}")
            figures.append(f"{'registration' if registration else 'browsing'} from the {label}: "
                           f"{', '.join(l.split(';')[3] for l in lines)} in {elapsed * 1000:.0f} ms, {len(asked)} PTR questions")
        return figures


def scenario_lookups(s: Suite) -> list[str]:
    """ciao query and resolve-host of names outside local.: asked of named, NODATA and NXDOMAIN no such record."""
    if "unicast DNS" not in subprocess.run([s.ciao, "query", "--help"], capture_output=True, text=True).stdout:
        raise Skip("this ciao asks multicast DNS alone for every name")
    lab, named, _ = s.lab("lookups")
    with lab:
        client, dns = lab["client"], lab["dns"]
        resolv = f"nameserver {dns.v4}\n"
        printer = "printer." + bind.DOMAIN.rstrip(".")
        figures = []

        def ciao(label: str, *argv: str) -> tuple[float, subprocess.CompletedProcess]:
            t0 = time.monotonic()
            command = with_resolv_conf(client, f"resolv-{label}.conf", resolv, s.ciao, *argv)
            r = subprocess.run(client.argv(*command), capture_output=True, text=True, timeout=30)
            return time.monotonic() - t0, r

        mark = named.mark()
        took, r = ciao("a", "query", printer, "A")
        fields = r.stdout.split()
        if r.returncode != 0 or fields[:1] != [printer + "."] or fields[3:5] != ["A", f"{V4NET}.50"]:
            raise Failure(f"ciao query {printer} A exited {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
        asked = [e["line"] for e in named.select(lambda e: f"query: {printer} IN A " in e.get("line", ""), after=mark)]
        if not asked:
            raise Failure(f"named logged no query for {printer} A: ciao did not ask it")
        figures.append(f"query A: {fields[4]} from named in {took * 1000:.0f} ms")

        # --server: the one server named, while /etc/resolv.conf names a host that refuses
        t0 = time.monotonic()
        command = with_resolv_conf(client, "resolv-server.conf", f"nameserver {lab['peer'].v4}\n",
                                   s.ciao, "query", "--server", dns.v4, printer, "AAAA")
        r = subprocess.run(client.argv(*command), capture_output=True, text=True, timeout=30)
        if r.returncode != 0 or r.stdout.split()[3:5] != ["AAAA", str(ipaddress.ip_address(f"{V6NET}:50"))]:
            raise Failure(f"ciao query --server {dns.v4} {printer} AAAA exited {r.returncode}: {r.stdout} {r.stderr}")
        figures.append(f"query --server AAAA in {(time.monotonic() - t0) * 1000:.0f} ms")

        took, r = ciao("host", "resolve-host", printer)
        addresses = [line.split("\t")[-1] for line in r.stdout.splitlines()]
        want = [f"{V4NET}.50", str(ipaddress.ip_address(f"{V6NET}:50"))]
        names = {line.split("\t")[0] for line in r.stdout.splitlines()}
        if r.returncode != 0 or addresses != want or names != {printer}:
            raise Failure(f"ciao resolve-host {printer} exited {r.returncode}: {addresses}, not {want}; {r.stderr.strip()}")
        figures.append(f"resolve-host: {', '.join(addresses)} in {took * 1000:.0f} ms")

        took, r = ciao("any", "query", printer, "ANY")
        types = sorted(line.split("\t")[3] for line in r.stdout.splitlines())
        if r.returncode != 0 or types != ["A", "AAAA"]:
            raise Failure(f"ciao query {printer} ANY exited {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")
        figures.append(f"query ANY: {' and '.join(types)}")

        for label, name, type_, what in (("nodata", printer, "TXT", "NODATA"),
                                         ("nxdomain", "nobody." + bind.DOMAIN.rstrip("."), "A", "NXDOMAIN")):
            took, r = ciao(label, "query", name, type_)
            if r.returncode != 1 or "no such record" not in r.stderr or took > 3:
                raise Failure(f"ciao query {name} {type_} ({what}) exited {r.returncode} after {took:.1f} s: "
                              f"{r.stdout.strip()} {r.stderr.strip()}")
            figures.append(f"query {type_} of {what}: no such record in {took * 1000:.0f} ms")

        took, r = ciao("continuous", "query", "-c", "--json", "--timeout", "2", printer, "TXT")
        events = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        denials = [e for e in events if e.get("event") == "noSuchRecord"]
        if r.returncode != 0 or len(denials) != 1 or denials[0].get("name") != printer + "." \
                or denials[0].get("type") != "TXT" or not denials[0].get("soa", "").startswith(f"ns.{bind.DOMAIN}"):
            raise Failure(f"ciao query -c --json {printer} TXT: exit {r.returncode}, {events}")
        took, r = ciao("continuous-human", "query", "-c", "--timeout", "2", printer, "TXT")
        adds = [l.split(None, 2)[2] for l in r.stdout.splitlines() if l.split()[1:2] == ["Add"]]
        if r.returncode != 0 or len(adds) != 1 or adds[0].split("\t")[0] != printer + "." \
                or adds[0].split("\t")[3:5] != ["TXT", "No Such Record"]:
            raise Failure(f"ciao query -c {printer} TXT: exit {r.returncode}, {r.stdout!r}")
        figures.append(f"query -c TXT: one noSuchRecord with the zone's SOA ({denials[0]['soa'].split()[0]} ...), "
                       "an Add line of TXT, No Such Record")

        # a host without a DNS server: its kernel refuses, and the lookup says so at once, not at
        # its timeout
        refusing = lab["peer"]
        t0 = time.monotonic()
        command = with_resolv_conf(client, "resolv-refused.conf", f"nameserver {refusing.v4}\n",
                                   s.ciao, "query", "--timeout", "20", printer, "A")
        r = subprocess.run(client.argv(*command), capture_output=True, text=True, timeout=60)
        took = time.monotonic() - t0
        if r.returncode != 1 or "refused" not in r.stderr or "waiting for a network interface" in r.stderr \
                or took > 10:
            raise Failure(f"ciao query {printer} A of a refusing server: exit {r.returncode} after {took:.1f} s, "
                          f"{r.stderr.strip()}")
        figures.append(f"a refusing server, in {took * 1000:.0f} ms with a 20 s timeout: "
                       + r.stderr.strip().splitlines()[-1].removeprefix("ciao: ")[:70])
        # -c says it on standard error and keeps asking
        command = with_resolv_conf(client, "resolv-refused-c.conf", f"nameserver {refusing.v4}\n",
                                   s.ciao, "query", "-c", "--timeout", "3", printer, "A")
        r = subprocess.run(client.argv(*command), capture_output=True, text=True, timeout=60)
        said = [l for l in r.stderr.splitlines() if f"A records of {printer}" in l and "refused" in l]
        if r.returncode != 0 or not said or any(l.split()[1:2] == ["Add"] for l in r.stdout.splitlines()):
            raise Failure(f"ciao query -c {printer} A of a refusing server: exit {r.returncode}, "
                          f"{r.stdout.strip()!r} {r.stderr.strip()!r}")
        figures.append(f"query -c of a refusing server: {len(said)} line(s) on standard error in 3 s, exit 0")

        mark = named.mark()
        took, r = ciao("local", "query", "--timeout", "1", "nothing.local", "A")
        leaked = named.select(lambda e: "nothing.local" in e.get("line", ""), after=mark)
        if r.returncode != 1 or leaked:
            raise Failure(f"ciao query nothing.local A: exit {r.returncode}, named saw {len(leaked)} queries for it")
        figures.append("a name in local. stays off named")

        # named stops: a record followed with -c goes once its TTL (30 s) has run out, not before
        short = "short-lived." + bind.DOMAIN
        command = with_resolv_conf(client, "resolv-expiry.conf", resolv, s.ciao, "query", "-c", "--json", short, "A")
        follow = client.spawn("ciao-query-expiry", *command, parse=lambda l: json.loads(l) if l.startswith("{") else {"line": l})
        added = follow.wait_for(lambda e: e.get("event") == "added", 10, what=f"{short} A added")
        named.stop()
        removed = follow.wait_for(lambda e: e.get("event") == "removed", 60, what=f"{short} A removed")
        if removed["t"] - added["t"] < 30:
            raise Failure(f"{short} A (TTL 30) removed {removed['t'] - added['t']:.1f} s after it came, before its TTL ran out")
        figures.append(f"named stopped: an A record (TTL 30) removed {removed['t'] - added['t']:.1f} s after it came")
        return figures


def scenario_polling(s: Suite) -> list[str]:
    """Steady-state queries of a running browse and resolve, ciao beside Apple's mDNSResponder."""
    s.need_ciao()
    mdns_dir = os.environ.get("CIAO_MDNSRESPONDER", "")
    if not os.path.exists(os.path.join(mdns_dir, "bin", "mdnsd")):
        raise Skip("Apple's mDNSResponder is not built here: set CIAO_MDNSRESPONDER to a directory with bin/mdnsd")
    lab, named, _ = s.lab("polling")
    with lab:
        client, peer, dns = lab["client"], lab["peer"], lab["dns"]
        resolv = os.path.join(peer.dir, "resolv.conf")
        with open(resolv, "w") as f:
            f.write(f"nameserver {dns.v4}\n")
        lab.start_mdnsd(peer, mdns_dir, resolv_conf=resolv)
        host = f"printer.{bind.DOMAIN}"
        mark = named.mark()
        t0 = time.monotonic()
        client.spawn("ciao-browse", *s.ciao_argv("browse", "-d", bind.DOMAIN, "-r", "-p", bind.LIVE_TYPE, server=dns),
                     stdin=False, parse=lambda l: {"line": l})
        browse = lab.dns_sd(peer, "dns-sd-B", "-B", bind.LIVE_TYPE, bind.DOMAIN)
        lab.dns_sd(peer, "dns-sd-L", "-L", "Anchor", bind.LIVE_TYPE, bind.DOMAIN)
        lab.dns_sd(peer, "dns-sd-G", "-G", "v4v6", host)
        browse.wait_for(lambda e: "Anchor" in e.get("line", ""), 15, what="dns-sd -B finding the anchor")
        window = 90
        time.sleep(window - (time.monotonic() - t0))
        counts: dict[str, dict[str, int]] = {client.v4: {}, peer.v4: {}}
        for e in named.select(lambda e: True, after=mark):
            m = re.search(r"client @\S+ ([0-9.]+)#\d+ .*query: \S+ IN (\S+)", e.get("line", ""))
            if m and m.group(1) in counts:
                counts[m.group(1)][m.group(2)] = counts[m.group(1)].get(m.group(2), 0) + 1
        ciao, mdns = counts[client.v4], counts[peer.v4]
        if not ciao or not mdns:
            raise Failure(f"named logged no queries from ciao ({ciao}) or mDNSResponder ({mdns})")
        show = lambda c: ", ".join(f"{t} {n}" for t, n in sorted(c.items())) + f" = {sum(c.values()) / window * 3600:.0f}/h"
        return [f"{window} s of browse + resolve of one service (PTR, SRV, TXT at TTL 10; A, AAAA at TTL 300)",
                f"ciao browse -r: {show(ciao)}", f"mDNSResponder (dns-sd -B, -L, -G v4v6): {show(mdns)}"]


# ---------------------------------------------------------------------------- hostile server

FAKEDNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakedns.py")
RSS_LIMIT_KB = 100 * 1024
# modes whose honest answers ciao must still find, through or after the hostile part
HONEST_MODES = {"ok", "wrong-id", "wrong-source", "off-domain", "huge-ttl"}


def measured_run(host: Host, argv: list[str], limit: float, logdir: str, name: str) -> dict:
    """Run `argv` in `host` to its end, killing it (and failing) past `limit` s. Returns its exit
    status, wall time, max RSS (kB, from wait4's rusage: `ip netns exec` execs, so the child is
    ciao itself), stdout and stderr."""
    out_path, err_path = os.path.join(logdir, f"{name}.out"), os.path.join(logdir, f"{name}.err")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        t0 = time.monotonic()
        proc = subprocess.Popen(host.argv(*argv), stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > limit:
                proc.kill()
                os.wait4(proc.pid, 0)
                raise Failure(f"{name}: {' '.join(argv)} still running after {limit:.0f} s (a hang)")
            time.sleep(0.02)
        elapsed = time.monotonic() - t0
    proc.returncode = 0                      # reaped by wait4; keep Popen from waiting again
    code = os.waitstatus_to_exitcode(status)
    with open(out_path) as f_out, open(err_path) as f_err:
        return {"code": code, "elapsed": elapsed, "rss": usage.ru_maxrss, "out": f_out.read(), "err": f_err.read()}


def scenario_hostile(s: Suite) -> list[str]:
    """Every hostile reply of fakedns.py against ciao browse -t -r, resolve and types -t."""
    s.need_ciao("browse", "resolve", "types")
    import fakedns  # noqa: E402
    lab = Lab(f"{s.prefix}host", os.path.join(s.workdir, "hostile"), ["dns", "client"])
    with lab:
        client, dns = lab["client"], lab["dns"]
        other = f"{V4NET}.101"
        dns.run("ip", "addr", "add", f"{other}/24", "dev", IFNAME)
        figures = []
        for mode in fakedns.MODES:
            fake = dns.spawn(f"fake-{mode}", "python3", FAKEDNS, "--mode", mode, "--address", dns.v4,
                             "--other", other, parse=lambda l: json.loads(l) if l.startswith("{") else {"line": l},
                             stdin=False)
            fake.wait_for({"event": "ready"}, 10, what=f"fakedns.py --mode {mode}")
            runs = {
                "browse": (s.ciao_argv("browse", "-d", bind.DOMAIN, "-t", "-r", "-p", "-k", "_http._tcp", server=dns),
                           40),
                "resolve": (s.ciao_argv("resolve", "Good", "_http._tcp", bind.DOMAIN, "--timeout", "3", "-p", "-k",
                                        server=dns), 3 + 5),
                "types": (s.ciao_argv("types", "-d", bind.DOMAIN, "-t", "-p", server=dns), 40),
            }
            parts = []
            for command, (argv, limit) in runs.items():
                start = fake.mark()
                r = measured_run(client, argv, limit, lab.workdir, f"{mode}-{command}")
                queries = len(fake.select(lambda e: "qname" in e, after=start))
                qps = queries / max(r["elapsed"], 1.0)      # per second, over at least 1 s
                what = f"{mode}: ciao {command} exited {r['code']} in {r['elapsed']:.1f} s"
                if r["code"] not in (0, 1):
                    raise Failure(f"{what} (a crash or a signal):\n{r['err'][-800:]}")
                if r["code"] == 1 and not r["err"].strip():
                    raise Failure(f"{what} with nothing on stderr")
                if r["rss"] > RSS_LIMIT_KB:
                    raise Failure(f"{what} with max RSS {r['rss']} kB")
                if "Forged" in r["out"] or "Evil" in r["out"]:
                    raise Failure(f"{what} and printed a forged answer:\n{r['out']}")
                if qps > 20:
                    raise Failure(f"{what} after {queries} queries ({qps:.1f}/s): it amplifies")
                if mode in HONEST_MODES and command != "types":
                    if r["code"] != 0 or "Good" not in r["out"]:
                        raise Failure(f"{what} without the honest service Good:\n{r['out']}{r['err'][-400:]}")
                error = r["err"].strip().splitlines()[-1] if r["err"].strip() else ""
                parts.append(f"{command} {r['code']}/{r['elapsed']:.1f}s/{r['rss'] // 1024}MB/{qps:.1f}qps"
                             + (f" ({error[:70]})" if error else ""))
            fake.stop()
            figures.append(f"{mode}: " + ", ".join(parts))
        return figures


SCENARIOS = {
    "zone": (scenario_zone, "BIND in the lab: zone by AXFR, TSIG key, update-policy"),
    "browse": (scenario_browse, "ciao browse -d -r -p of static services beside avahi-browse -d"),
    "types": (scenario_types_and_subtype, "ciao types -d and a subtype browse"),
    "live": (scenario_live, "a running browse sees nsupdate's add and delete; avahi-browse -d beside it"),
    "bench": (scenario_bench, "200 services browsed and resolved, three runs"),
    "register": (scenario_register, "ciao publish -d: signed registration, rename, exact deletion, bad keys"),
    "domains": (scenario_domains, "ciao domains (-R) from the search list and from the reverse zone alone"),
    "lookups": (scenario_lookups, "ciao query and resolve-host of names in the zone: answers, NODATA and NXDOMAIN"),
    "polling": (scenario_polling, "steady-state queries per hour, ciao beside mDNSResponder (CIAO_MDNSRESPONDER)"),
    "lease": (scenario_lease, "ciao publish -d refreshes the Update Lease a server grants (leaseserver.py)"),
    "api": (scenario_api, "the public API (interop agent) browses, resolves, reconfirms, lists types and publishes"),
    "hostile": (scenario_hostile, "fakedns.py's hostile replies: no crash, no hang, bounded memory, forgeries ignored"),
}


def main() -> int:
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("--ciao", required=True, help="path of the ciao executable")
    a.add_argument("--agent", help="path of CiaoInteropAgent, which drives Ciao's public API (scenario api)")
    a.add_argument("--prefix", default=f"ciaowa{os.getpid()}", help="namespace name prefix, unique per run")
    a.add_argument("--workdir", default=f"/tmp/ciao-wide-area.{os.getpid()}", help="logs and server state")
    args = parse_scenario_arguments(a, SCENARIOS)
    if args is None:
        return 0
    return run_scenarios(SCENARIOS, args.scenarios, Suite(args), args.workdir, "wide-area")


if __name__ == "__main__":
    sys.exit(main())
