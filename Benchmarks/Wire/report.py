#!/usr/bin/env python3
"""Turns a wire benchmark's results.json into results.md (tables: each stack's figure and Ciao's
ratio to the best peer) and latency.svg (the latency distributions, SVG written by hand).

    report.py DIR        (re)writes DIR/results.md and DIR/latency.svg from DIR/results.json
"""

from __future__ import annotations

import html
import json
import math
import os
import random
import statistics
import sys

STACKS = ["ciao", "avahi", "zeroconf"]      # the stacks of a results.json that does not list its own
NAMES = {"ciao": "Ciao", "avahi": "avahi", "zeroconf": "zeroconf", "mdnsresponder": "mDNSResponder"}
COLORS = {"ciao": "#d1495b", "avahi": "#00798c", "zeroconf": "#edae49", "mdnsresponder": "#6a4c93"}


# ---------------------------------------------------------------------------- numbers

def fmt_time(s: float | None) -> str:
    if s is None:
        return "–"
    if math.isinf(s):
        return "timed out"
    return f"{s * 1e3:.0f} ms" if s < 1 else f"{s:.2f} s"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "–"
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1048576:.2f} MiB"


def pct_(f: float | None) -> str:
    """A fraction as a percentage that never rounds a miss up to 100 %."""
    if f is None:
        return "–"
    return "100 %" if f >= 1 else f"{math.floor(f * 1000) / 10:g} %"


def dist(samples: list[float]) -> dict | None:
    if not samples:
        return None
    return {"n": len(samples), "min": min(samples), "median": statistics.median(samples), "max": max(samples)}


def fmt_dist(d: dict | None, expected: int | None = None) -> str:
    if d is None:
        return "–"
    s = f"{fmt_time(d['median'])} ({fmt_time(d['min'])}–{fmt_time(d['max'])})"
    if expected and d["n"] < expected:
        s += f" n={d['n']}/{expected}"
    return s


def stacks_of(res: dict) -> list[str]:
    """The stacks measured in the run, Ciao first (meta.stacks; older results: the three)."""
    return res.get("meta", {}).get("stacks", STACKS)


def daemons(stacks: list[str], avahi: str, mdnsresponder: str) -> str:
    """"(avahi: ...; mDNSResponder: ...)": what the figure of the daemon-based stacks covers, the
    mDNSResponder part only when it ran."""
    return f"(avahi: {avahi}" + (f"; mDNSResponder: {mdnsresponder})" if "mdnsresponder" in stacks else ")")


def vs_peers(values: dict, higher_better: bool = False) -> str:
    """`ratio` of values["ciao"] to the other stacks' values (a dict over the run's stacks)."""
    return ratio(values["ciao"], [v for s, v in values.items() if s != "ciao"], higher_better)


def ratio(ciao: float | None, peers: list[float | None], higher_better: bool = False) -> str:
    """Ciao ÷ best peer, with ✓ when Ciao is at least as good as the best peer."""
    peers = [p for p in peers if p is not None]
    if ciao is None or not peers:
        return "–"
    best = max(peers) if higher_better else min(peers)
    if math.isinf(ciao) or math.isinf(best):            # a median run that timed out (run_times)
        return "– (all timed out)" if ciao == best else ("✓" if ciao < best else "✗ (timed out)")
    if best == 0:
        return "✓ (peer 0)" if ciao == 0 or (higher_better and ciao >= 0) else "✗ (best peer 0)"
    r = ciao / best
    ok = ciao >= best if higher_better else ciao <= best
    return f"{r:.2f}× {'✓' if ok else '✗'}"


def fmt_idle(cpu_s: float, wakeups: int, seconds: float) -> str:
    """CPU and wake-ups of an idle window, per 60 s."""
    k = 60 / seconds
    return f"{cpu_s * k * 1e3:.1f} ms, {wakeups * k:.0f} wake-ups"


def ciao_idle_parts(r: dict, base: dict | None) -> str:
    """Beside the whole agent's idle figures: Ciao's own thread, and the baseline (the same agent
    in the same window, Ciao never started: what Swift concurrency and Dispatch cost alone)."""
    if "runtime_thread" not in r:
        return ""
    rt = r["runtime_thread"]
    parts = [f"runtime thread: {fmt_idle(rt['cpu_s'], rt['wakeups'], r['seconds'])}" if rt
             else "runtime thread: not found"]
    if base:
        parts.append(f"Swift runtime baseline: {fmt_idle(base['cpu_s'], base['wakeups'], base['seconds'])}")
    return " (" + "; ".join(parts) + ")"


# ---------------------------------------------------------------------------- tables

def pair_map(rows: list[dict]) -> dict:
    return {(r["publisher"], r["browser"]): r for r in rows}


def views() -> list[tuple[str, callable]]:
    """The three ways a stack is set beside the others: both ends its own; as the browser of a
    common publisher (avahi-daemon); as the publisher, browsed by Ciao."""
    return [("each stack browsing itself", lambda s: (s, s)),
            ("as browser, avahi publishing", lambda s: ("avahi", s)),
            ("as publisher, Ciao browsing", lambda s: (s, "ciao"))]


def runs_by_pair(results: list[dict]) -> dict:
    """(d)/(e) results by (publisher, browser): every run of that cell, in order."""
    runs: dict = {}
    for r in results:
        runs.setdefault((r["publisher"], r["browser"]), []).append(r)
    return runs


def view_rows(results: list[dict], key: str, stacks: list[str]):
    """For each value of `key` among the (d)/(e) results, in order, and each view with at least two
    stacks measured: the value, the view's name and the runs per stack (an empty list where none)."""
    for value in sorted({r[key] for r in results}):
        by_pair = runs_by_pair([r for r in results if r[key] == value])
        for vname, pick in views():
            runs = {s: by_pair.get(pick(s), []) for s in stacks}
            if sum(bool(r) for r in runs.values()) >= 2:
                yield value, vname, runs


def run_times(runs: list[dict]) -> list[float]:
    """Each run's time until all services were resolved; infinity for a run that timed out first,
    so that a median says whether most runs got there."""
    return [r["time_s"] if r.get("time_s") else math.inf for r in runs]


def median_of(runs: list[dict], value) -> float | None:
    """The median over `runs` of `value(run)`, leaving out runs without it."""
    values = [v for v in map(value, runs) if v is not None]
    return statistics.median(values) if values else None


def fmt_spread(values: list[float], fmt) -> str:
    """One value, or several equal ones, as it is; others as median (min–max)."""
    if min(values) == max(values):
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


def fmt_scale_time(runs: list[dict], count: int) -> str:
    """A (d) cell's time over its runs, and how short of `count` the runs that timed out fell."""
    if not runs:
        return "–"
    cell = fmt_spread(run_times(runs), fmt_time)
    short = [r for r in runs if not r.get("time_s")]
    if short:
        fewest = min(short, key=lambda r: r.get("resolved", 0))
        cell += (f"; {len(short)} of {len(runs)} runs timed out, the worst with "
                 f"{fewest.get('resolved', 0)}/{count} in {fmt_time(fewest.get('waited_s'))}")
    return cell


def fmt_scale_bytes(runs: list[dict]) -> str:
    """A (d) cell's bytes on the wire over its runs, with the median packet count."""
    wires = [r["wire"] for r in runs if r.get("wire", {}).get("bytes") is not None]
    if not wires:
        return "–"
    return f"{fmt_spread([w['bytes'] for w in wires], fmt_bytes)}, {statistics.median(w['packets'] for w in wires):g} pkts"


def ran_30s(r: dict) -> bool:
    """True when an (e) run went on past 10 s or resolved all, so its 30-s share means something
    (--quick stops at 10 s)."""
    return r.get("waited_s", 0) > 10.5 or bool(r.get("time_s"))


def fmt_loss(runs: list[dict]) -> str:
    """An (e) cell: the shares resolved within 10 s and 30 s over its runs, and when all were."""
    if not runs:
        return "–"
    cell = fmt_spread([r["within10"] for r in runs], pct_) + " / " + (
        fmt_spread([r["within30"] for r in runs], pct_) if all(map(ran_30s, runs)) else "(not run)")
    if all(r.get("time_s") for r in runs):
        cell += f"; all in {fmt_spread(run_times(runs), fmt_time)}"
    return cell


def summary(res: dict) -> list[str]:
    stacks = stacks_of(res)
    out = ["| measurement | " + " | ".join(NAMES[s] for s in stacks) + " | Ciao ÷ best peer | target |",
           "|---|" + "---|" * len(stacks) + "---|---|"]
    reps = res.get("meta", {}).get("repetitions", {})
    targets = {"discovery": "median ≤ 150 ms", "new_service": "median ≤ 1.0 s", "removal": "≤ 1.2 s",
               "fresh_publisher": "median ≤ 0.90 s"}
    titles = {"discovery": "(a) existing service, browse → resolved",
              "new_service": "(b) new service, publish → resolved",
              "removal": "(c) removal, unpublish → removed",
              "fresh_publisher": "(g) new publishing process, start → resolved"}
    expected_of = {"discovery": "discovery", "fresh_publisher": "fresh"}
    for key in ("discovery", "new_service", "removal", "fresh_publisher"):
        pm = pair_map(res.get(key, []))
        if not pm:
            continue
        expected = reps.get(expected_of.get(key, "new_and_removal"))
        for vname, pick in views():
            ds = {s: dist(pm.get(pick(s), {}).get("samples", [])) for s in stacks}
            med = {s: ds[s]["median"] if ds[s] else None for s in stacks}
            cells = [fmt_dist(ds[s], expected) for s in stacks]
            out.append(f"| {titles[key]}, median (min–max), {vname} | " + " | ".join(cells)
                       + f" | {vs_peers(med)} | {targets[key]} |")
    withdrawal = {r["stack"]: r for r in res.get("withdrawal", [])}
    if withdrawal:
        n = next(iter(withdrawal.values()))["services"]
        by = {s: withdrawal.get(s, {}).get("bytes") for s in stacks}
        cells = []
        for s in stacks:
            r = withdrawal.get(s)
            cells.append("–" if r is None else
                         f"{r['packets']} pkts ({fmt_bytes(r['bytes'])}), {r['services_said_goodbye']}/{n} services, "
                         f"last after {fmt_time(r['last_s'])}")
        out.append(f"| (c) the publisher leaves with {n} services: goodbye packets (bytes), services said goodbye to, "
                   f"last goodbye after the command | " + " | ".join(cells)
                   + f" | {vs_peers(by)} | |")
    for count, vname, runs in view_rows(res.get("scale", []), "count", stacks):
        t = {s: statistics.median(run_times(runs[s])) if runs[s] else None for s in stacks}
        out.append(f"| (d) {count} services, browse → all resolved, {vname} | "
                   + " | ".join(fmt_scale_time(runs[s], count) for s in stacks)
                   + f" | {vs_peers(t)} | |")
        by = {s: median_of(runs[s], lambda r: r.get("wire", {}).get("bytes")) for s in stacks}
        target = "fewer bytes than any peer" if count == 1000 and vname.startswith("each") else ""
        out.append(f"| (d) {count} services, bytes on the wire meanwhile, packets, {vname} | "
                   + " | ".join(fmt_scale_bytes(runs[s]) for s in stacks)
                   + f" | {vs_peers(by)} | {target} |")
    for pct, vname, runs in view_rows(res.get("loss", []), "loss", stacks):
        f10 = {s: median_of(runs[s], lambda r: r.get("within10")) for s in stacks}
        out.append(f"| (e) {pct} % loss, 200 services resolved within 10 s / 30 s, {vname} | "
                   + " | ".join(fmt_loss(runs[s]) for s in stacks)
                   + f" | {vs_peers(f10, True)} (10 s) | |")
    cpq = {r["stack"]: r for r in res.get("cpu_per_query", [])}
    if cpq:
        v = {s: cpq.get(s, {}).get("per_1000_ms") for s in stacks}
        cells = [f"{v[s]:.0f} ms ({cpq[s]['answered']}/{cpq[s]['queries']} answered{rounds_note(cpq[s])})"
                 if v[s] is not None else "–" for s in stacks]
        av = v.get("avahi")
        tgt = f"≤ {av / 2:.0f} ms (half of avahi's)" if av else "≤ half of avahi's"
        out.append(f"| (f) responder CPU per 1000 queries answered, {cpq.get('ciao', cpq[next(iter(cpq))])['services']} "
                   f"services published | " + " | ".join(cells) + f" | {vs_peers(v)} | {tgt} |")
    idle = {(r["stack"], r["role"]): r for r in res.get("idle", [])}
    if idle:
        for role in ("publisher", "browser"):
            rows = {s: idle.get((s, role)) for s in stacks}
            v = {s: (r["cpu_s"] / r["seconds"] * 60 if r else None) for s, r in rows.items()}
            cells = [fmt_idle(r["cpu_s"], r["wakeups"], r["seconds"]) if r else "–" for r in rows.values()]
            if rows["ciao"]:
                cells[0] += ciao_idle_parts(rows["ciao"], idle.get(("ciao", "baseline")))
            what = ("responder with one service " + daemons(stacks, "the daemon", "mdnsd") if role == "publisher"
                    else f"browser of the {len(stacks)} types "
                    + daemons(stacks, f"daemon + {len(stacks)} avahi-browse", "mdnsd + its client mdns_peer.py"))
            out.append(f"| (f) CPU while idle per 60 s, {what} | " + " | ".join(cells)
                       + f" | {vs_peers(v)} | only protocol timers |")
    mem = {r["stack"]: r for r in res.get("memory", [])}
    if mem:
        n = next(iter(mem.values()))["services"]
        v = {s: mem.get(s, {}).get("rss_kib") for s in stacks}
        cells = [f"{v[s] / 1024:.1f} MiB (peak {mem[s]['hwm_kib'] / 1024:.1f})" if v[s] else "–" for s in stacks]
        out.append(f"| (f) resident memory, {n} services published {daemons(stacks, 'the daemon', 'mdnsd')} | "
                   + " | ".join(cells)
                   + f" | {vs_peers(v)} | |")
        before = {s: mem.get(s, {}).get("rss_before_kib") for s in stacks}
        out.append(growth_line(f"publishing {n} services (the same process before)",
                               {s: v[s] - before[s] if v[s] and before[s] else None for s in stacks}))
    scale = res.get("scale", [])
    if scale:
        n = max(r["count"] for r in scale)
        by_pair = runs_by_pair([r for r in scale if r["count"] == n])
        runs = {s: by_pair.get(("avahi", s), []) for s in stacks}
        v = {s: median_of(runs[s], lambda r: r.get("browser_rss_kib")) for s in stacks}
        hwm = {s: median_of(runs[s], lambda r: r.get("browser_hwm_kib")) for s in stacks}
        cells = [f"{v[s] / 1024:.1f} MiB (peak {hwm[s] / 1024:.1f})" if v[s] else "–" for s in stacks]
        median_note = ", the median of the (d) runs" if any(len(r) > 1 for r in runs.values()) else ""
        what = daemons(stacks, "daemon + avahi-browse", "mdnsd, its Python client left out")
        out.append(f"| (f) resident memory, {n} services browsed and resolved {what}{median_note} | "
                   + " | ".join(cells) + f" | {vs_peers(v)} | |")
        growth = {s: median_of(runs[s], lambda r: r["browser_rss_kib"] - r["browser_rss_before_kib"]
                               if r.get("browser_rss_kib") and r.get("browser_rss_before_kib") else None)
                  for s in stacks}
        out.append(growth_line(f"browsing and resolving {n} services "
                               + daemons(stacks, "the daemon's growth + avahi-browse", "mdnsd's growth"),
                               growth))
    return out


def growth_line(what: str, growth: dict) -> str:
    """A summary row of what `what` added to resident memory, stack by stack (a dict over the run's
    stacks: KiB, None if unknown)."""
    cells = [f"{v / 1024:.1f} MiB" if v is not None else "–" for v in growth.values()]
    return (f"| (f) resident memory added by {what} | " + " | ".join(cells)
            + f" | {vs_peers(growth)} | |")


def rounds_note(r: dict) -> str:
    """"; median of 3 rounds: a, b, c ms" when the figure is a median of several rounds."""
    rounds = [x for x in r.get("rounds_per_1000_ms", []) if x is not None]
    if len(rounds) < 2:
        return ""
    return f"; median of {len(rounds)} rounds: " + ", ".join(f"{x:.0f}" for x in rounds) + " ms"


def cell_order(r: dict, stacks: list[str]) -> tuple[int, int, int]:
    """Where a (d)/(e) run goes in a details table: by publisher, browser, then run."""
    return stacks.index(r["publisher"]), stacks.index(r["browser"]), r.get("run", 0)


def idle_threads(p: dict) -> str:
    """The threads of one idle process that ran in the window: name CPU, wake-ups."""
    ran = [f"{t['comm']} {t['cpu_s'] * 1e3:.1f} ms, {t['wakeups']}" for t in p.get("threads", {}).values()
           if t["wakeups"] or t["cpu_s"] > 0]
    if p.get("threads_exited"):
        ran.append(f"{p['threads_exited']} exited: CPU from utime+stime ticks")
    return f" ({'; '.join(ran)})" if ran else ""


def matrices(res: dict) -> list[str]:
    stacks = stacks_of(res)
    out = []
    reps = res.get("meta", {}).get("repetitions", {})
    for key, title in (("discovery", "(a) existing service: browse → resolved"),
                       ("new_service", "(b) new service: publish → resolved on another host"),
                       ("removal", "(c) removal: unpublish → removed on another host"),
                       ("fresh_publisher", "(g) a new process publishing one service: start → resolved on another host")):
        pm = pair_map(res.get(key, []))
        if not pm:
            continue
        expected = reps.get({"discovery": "discovery", "fresh_publisher": "fresh"}.get(key, "new_and_removal"))
        out += ["", f"### {title}, median (min–max); rows: publisher, columns: browser", "",
                "| publisher ＼ browser | " + " | ".join(NAMES[s] for s in stacks) + " |", "|---|" + "---|" * len(stacks)]
        for p in stacks:
            out.append(f"| {NAMES[p]} | " + " | ".join(fmt_dist(dist(pm.get((p, s), {}).get("samples", [])), expected)
                                                      for s in stacks) + " |")
    if res.get("scale"):
        out += ["", "### (d) many services on one host: fresh browser → all resolved", "",
                "| services | publisher | browser | run | time | queries (bytes) | responses (bytes) | total bytes | IPv4 / IPv6 packets | browser RSS (peak) |",
                "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in sorted(res["scale"], key=lambda r: (r["count"], *cell_order(r, stacks))):
            w = r.get("wire", {})
            t = fmt_time(r["time_s"]) if r.get("time_s") else f"{r['resolved']}/{r['count']} in {fmt_time(r.get('waited_s'))}"
            out.append(f"| {r['count']} | {NAMES[r['publisher']]} | {NAMES[r['browser']]} | {r.get('run', 0) + 1} | {t} | "
                       f"{w.get('queries', '–')} ({fmt_bytes(w.get('query_bytes'))}) | "
                       f"{w.get('responses', '–')} ({fmt_bytes(w.get('response_bytes'))}) | {fmt_bytes(w.get('bytes'))} | "
                       f"{w.get('ipv4_packets', '–')} / {w.get('ipv6_packets', '–')} | "
                       f"{r.get('browser_rss_kib', 0) / 1024:.1f} MiB ({r.get('browser_hwm_kib', 0) / 1024:.1f}) |")
    if res.get("loss"):
        out += ["", "### (e) 200 services, loss on the browser's link (both ways)", "",
                "| loss | publisher | browser | run | within 10 s | within 30 s | all resolved after | packets dropped |",
                "|---:|---|---|---:|---:|---:|---:|---:|"]
        for r in sorted(res["loss"], key=lambda r: (r["loss"], *cell_order(r, stacks))):
            w30 = pct_(r['within30']) if ran_30s(r) else "(not run)"
            out.append(f"| {r['loss']} % | {NAMES[r['publisher']]} | {NAMES[r['browser']]} | {r.get('run', 0) + 1} | {pct_(r['within10'])} | "
                       f"{w30} | {fmt_time(r.get('time_s'))} | {r.get('dropped', '–')} |")
    if res.get("cpu_per_query"):
        out += ["", "### (f) responder CPU under query load", "",
                "| responder | services | queries sent | answered | rate | CPU | per 1000 answered | answer latency median (max) |",
                "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in res["cpu_per_query"]:
            lat = r.get("latency_ms") or {}
            out.append(f"| {NAMES[r['stack']]} | {r['services']} | {r['queries']} | {r['answered']} | {r['rate']:.0f}/s | "
                       f"{r['cpu_s'] * 1e3:.0f} ms | {r['per_1000_ms'] or 0:.1f} ms | "
                       f"{lat.get('median', 0):.1f} ms ({lat.get('max', 0):.0f} ms) |")
    if res.get("idle"):
        out += ["", "### (f) idle: CPU and wake-ups (context switches of all threads)", "",
                "| stack | role | seconds | CPU | wake-ups | Ciao's runtime thread (ciao-mdns) | "
                "per process (per thread that ran: CPU, wake-ups) |", "|---|---|---:|---:|---:|---:|---|"]
        roles = {"baseline": "baseline: agent idle, Ciao never started"}
        for r in res["idle"]:
            per = "; ".join(f"{k}: {v['cpu_s'] * 1e3:.1f} ms, {v['wakeups']}{idle_threads(v)}"
                            for k, v in r["processes"].items())
            rt = r.get("runtime_thread")
            if rt:
                rt_cell = f"{rt['cpu_s'] * 1e3:.1f} ms, {rt['wakeups']}"
            else:
                rt_cell = "not found" if r["stack"] == "ciao" and r["role"] != "baseline" else "–"
            out.append(f"| {NAMES[r['stack']]} | {roles.get(r['role'], r['role'])} | {r['seconds']:.0f} | "
                       f"{r['cpu_s'] * 1e3:.1f} ms | {r['wakeups']} | {rt_cell} | {per} |")
    return out


def meta_lines(res: dict) -> list[str]:
    m = res.get("meta", {})
    v = m.get("versions", {})
    out = ["## Command", "", "```", m.get("command", "?"), "```", "",
           f"Agent build: {m.get('build', '?')}", "", "## Machine and versions", "",
           f"- CPU: {m.get('cpu')} × {m.get('cpus')} ({m.get('virtualisation')})",
           f"- OS: {m.get('os')}, kernel {m.get('kernel')}"]
    out += [f"- {k}: {val}" for k, val in v.items()]
    ls = m.get("load_summary", {})
    out += [f"- Run: {m.get('started')} → {m.get('finished')} ({m.get('duration_s')} s); "
            f"repetitions {m.get('repetitions')}; idle window {m.get('idle_seconds')} s",
            f"- Load: 1-min load average {m.get('load_before', ['?'])[0]:.2f} before, "
            f"{m.get('load_after', ['?'])[0]:.2f} after, max {ls.get('load1_max', 0):.2f} during; "
            f"machine CPU busy {ls.get('busy_mean', 0):.0%} on average (5-s samples, the run included)",
            f"- Busiest processes before: {'; '.join(m.get('top_before', [])[:5])}",
            f"- Busiest processes after: {'; '.join(m.get('top_after', [])[:5])}"]
    return out


NOTES = [
    "- (a) warm process, cold cache, for every stack: Ciao and zeroconf browse in a new process whose "
    "runtime a warm-up browse (of a type nobody publishes) started 1 s before; avahi-daemon is restarted 2 s "
    "before and `avahi-browse -r -p TYPE` is exec'd by a waiting shell at t0 (its exec and D-Bus connection "
    "are inside avahi's figure). Each process browses the publishers' types in turn, never a type "
    "it has seen; >= 1.3 s between two hits on one publisher (responders multicast a record at most once a second).",
    "- (b) and (c): one long-running browser per stack browses all the publishers' types; t0 is the publish / "
    "unpublish command. All the browsers hear the same announcement, so a row of (b) differs by "
    "publisher only. In (c), zeroconf's browser reports the removal as soon as the goodbye arrives; "
    "RFC 6762 §10.1 asks to keep a goodbye record for 1 s, which Ciao and avahi do (≈ 1.00 s): that "
    "row compares different semantics.",
    "- (g) a new process per trial publishing one service, after the long-running publishers have left: "
    "Ciao's agent and zeroconf's peer spawned and told to publish at once, avahi-publish-service against the "
    "host's warm avahi-daemon; t0 just before the spawn. Every namespace keeps the machine's host name; the "
    "browsers (Ciao's only browsing) run for the whole phase.",
    "- (c) at scale: after (d)–(f), each publisher leaves with all its services up: Ciao's process exits "
    "(its exit hook withdraws everything), avahi's D-Bus client that owns the entry groups quits (the daemon "
    "withdraws them), zeroconf's peer quits (unregister_all_services, as close() does). Goodbyes = responses "
    "from the publisher whose records all have TTL 0, captured on its switch port from the command to 3 s "
    "after the process ended; services said goodbye to = distinct PTR targets of the bulk type among them.",
    "- (d) a fresh browser (as in (a)), started once the publisher's host has sent nothing for 1.5 s "
    "(still announcing, or answering the last browser, it would fill the new one's cache unasked); "
    "bytes = Ethernet frames captured (dumpcap) on the browser's switch "
    "port, sent by the publisher's or the browser's host, from the browse command to the last "
    "resolution; IPv4 and IPv6 both count (every stack uses both).",
    "- (e) nftables drops the given share of packets both ways on the browser's link; the browser is "
    "fresh; the run stops when all 200 are resolved or at 30 s.",
    "- (d) and (e): each cell is measured {bulk_runs} (--bulk-runs), a round of every cell of a publisher "
    "before the next; the summary gives median (min–max) over the runs, a run that timed out before all "
    "were resolved counting as the slowest.",
    "- (f) CPU per query: host q sends QM SRV queries for distinct instances from port 5353 at a fixed rate, "
    "each name asked again only after > 1 s; CPU of the responder process (avahi: the daemon) over the "
    "load; the median of three rounds of 6000 queries. Idle: the publishers (one service each) and the browsers (all the types) on "
    "one link, nothing changing, 60 s; per thread from /proc/PID/task/TID: wake-ups = voluntary + "
    "involuntary context switches (status), CPU = on-CPU time (schedstat, ns; utime+stime ticks from stat "
    "are in results.json), summed over the process(es). For Ciao, its own thread (named ciao-mdns) apart, "
    "and in the same window the baseline: the same agent started with the browsers and sent only `stats`, "
    "so that Swift concurrency and Dispatch run but Ciao's runtime never starts. Memory: VmRSS (VmHWM) of the responder after the largest (d) run and "
    "of the fresh browser right after it resolved the last service. Memory added: the same VmRSS less that of the "
    "same process(es) before, the responder's before its first (d) publication (with the few services of (a)–(c)), "
    "the browser's right before the browse command; a process started for the browse (avahi-browse) counts whole. "
    "The browser's figures are the median of the (d) runs.",
]

MDNSRESPONDER_NOTE = (
    "- mDNSResponder: Apple's `mdnsd` (the mDNSPosix build), one per host in its own UTS namespace (host name "
    "`<host>-mdns`), driven through libdns_sd.so by `Tests/Interop/peers/mdns_peer.py` (Python ctypes, every "
    "operation on one shared connection; browse → DNSServiceResolve → DNSServiceGetAddrInfo, `resolved` once "
    "SRV, TXT and one address are known). As a browser in (a), (d), (e) it is a freshly started mdnsd (cold "
    "cache) and a new client, 2 s before, like avahi; (g) runs `dns-sd -R` against the warm mdnsd; (c) at scale: "
    "the client quits and mdnsd withdraws its registrations. Responder CPU and memory are mdnsd's; a browser's "
    "CPU is mdnsd's and the client's, its memory mdnsd's alone (the client is a Python interpreter standing in "
    "for an application). mdnsd runs with `-debug`, which keeps it in the foreground and sends its log to "
    "stdout (`-foreground` would send it to the machine's syslog), here to a file; the Posix daemon always logs "
    "(it sets mDNS_LoggingEnabled at start), so its CPU figures include that logging, heavy with many services "
    "(a line per record that does not fit into a packet). In (c) its rows include the time mdnsd takes from "
    "the cancelled registration to the goodbye (the mDNSResponder → zeroconf cell shows it alone).")


def write(out_dir: str) -> None:
    with open(os.path.join(out_dir, "results.json")) as f:
        res = json.load(f)
    stacks = stacks_of(res)
    with_mdns = "mdnsresponder" in stacks
    title = ("Ciao, avahi-daemon, python-zeroconf and mDNSResponder" if with_mdns
             else "Ciao, avahi-daemon and python-zeroconf")
    lines = [f"# {title} on the wire", "",
             "Ratio = Ciao ÷ best peer (lower is better, except for the loss fractions); ✓ = Ciao at "
             "least as good as the best peer. Latencies: median (min–max) over the repetitions.", "",
             "## Summary", ""]
    lines += summary(res)
    runs = res.get("meta", {}).get("repetitions", {}).get("bulk", 1)
    lines += ["", "## How", ""] + [n.replace("{bulk_runs}", "once" if runs == 1 else f"{runs} times") for n in NOTES]
    lines.append(MDNSRESPONDER_NOTE if with_mdns else
                 "- mDNSResponder was not given to this run (--mdnsresponder DIR / CIAO_MDNSRESPONDER): its column is left out.")
    lines += ["", "## Details"] + matrices(res) + [""] + meta_lines(res)
    if res.get("errors"):
        lines += ["", "## Errors during the run", ""] + [f"- `{e.splitlines()[0][:300]}`" for e in res["errors"]]
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    svg(res, os.path.join(out_dir, "latency.svg"))


# ---------------------------------------------------------------------------- the plot

def nice_step(span: float) -> float:
    """A 1-2-5 step giving 5 to 10 ticks over `span`."""
    raw = span / 6
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def svg(res: dict, path: str) -> None:
    """Three panels ((a), (b), (c)), each with its own linear time axis from 0; one row per
    publisher → browser pair: every sample as a dot, a bar from min to max, a tick at the median."""
    panels = [(k, t) for k, t in (("discovery", "(a) existing service: browse command → resolved"),
                                  ("new_service", "(b) new service: publish command → resolved on another host"),
                                  ("removal", "(c) removal: unpublish command → removed on another host")) if res.get(k)]
    if not any(r["samples"] for k, _ in panels for r in res[k]):
        return
    stacks = stacks_of(res)
    W, left, right, row_h, top_pad = 900, 210, 40, 22, 40
    plot_w = W - left - right
    parts, y = [], 20
    rnd = random.Random(6)
    for key, title in panels:
        rows = [r for p in stacks for s in stacks for r in res[key] if r["publisher"] == p and r["browser"] == s]
        vals = [v for r in rows for v in r["samples"]]
        hi_v = max(vals) if vals else 1.0
        step = nice_step(hi_v * 1.05)
        hi = step * math.ceil(hi_v * 1.05 / step)

        def x(v: float, hi=hi) -> float:
            return left + max(0.0, min(v, hi)) / hi * plot_w

        h = top_pad + row_h * len(rows) + 30
        parts.append(f'<text x="{left}" y="{y + 18}" font-size="15" font-weight="bold">{html.escape(title)}</text>')
        y0 = y + top_pad
        n = 0
        while n * step <= hi * 1.0001:
            v = n * step
            gx = x(v)
            parts.append(f'<line x1="{gx:.1f}" y1="{y0 - 6}" x2="{gx:.1f}" y2="{y0 + row_h * len(rows)}" '
                         f'stroke="#ddd" stroke-width="1"/>')
            label = "0" if v == 0 else (f"{v * 1e3:.0f} ms" if hi < 2 else f"{v:g} s")
            parts.append(f'<text x="{gx:.1f}" y="{y0 + row_h * len(rows) + 16}" font-size="11" '
                         f'text-anchor="middle" fill="#555">{label}</text>')
            n += 1
        for i, r in enumerate(rows):
            cy = y0 + i * row_h + row_h / 2
            col = COLORS[r["browser"]]
            label = f"{NAMES[r['publisher']]} → {NAMES[r['browser']]}"
            parts.append(f'<text x="{left - 8}" y="{cy + 4:.1f}" font-size="12" text-anchor="end">{html.escape(label)}</text>')
            smp = r["samples"]
            if not smp:
                parts.append(f'<text x="{left + 4}" y="{cy + 4:.1f}" font-size="11" fill="#999">no samples</text>')
                continue
            parts.append(f'<line x1="{x(min(smp)):.1f}" y1="{cy:.1f}" x2="{x(max(smp)):.1f}" y2="{cy:.1f}" '
                         f'stroke="{col}" stroke-width="2" opacity="0.5"/>')
            for v in smp:
                parts.append(f'<circle cx="{x(v):.1f}" cy="{cy + rnd.uniform(-4, 4):.1f}" r="2.6" fill="{col}" '
                             f'opacity="0.75"/>')
            mx = x(statistics.median(smp))
            parts.append(f'<line x1="{mx:.1f}" y1="{cy - 8:.1f}" x2="{mx:.1f}" y2="{cy + 8:.1f}" stroke="#000" '
                         f'stroke-width="2"/>')
            parts.append(f'<text x="{W - 4}" y="{cy + 4:.1f}" font-size="10" text-anchor="end" fill="#333">'
                         f'{fmt_time(statistics.median(smp))}</text>')
        y += h + 10
    legend = " ".join(f'<rect x="{left + i * 160}" y="{y}" width="10" height="10" fill="{COLORS[s]}"/>'
                      f'<text x="{left + i * 160 + 14}" y="{y + 9}" font-size="12">{NAMES[s]} browsing</text>'
                      for i, s in enumerate(stacks))
    parts.append(legend)
    parts.append(f'<text x="{left}" y="{y + 28}" font-size="12">rows: publisher → browser; black tick and right '
                 f'column: median; bar: min–max; dots: repetitions</text>')
    total_h = y + 44
    doc = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{total_h}" viewBox="0 0 {W} {total_h}" '
           f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n' + "\n".join(parts) + "\n</svg>\n")
    with open(path, "w") as f:
        f.write(doc)


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else ".")
