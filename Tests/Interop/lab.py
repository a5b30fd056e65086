"""The interop suite's private network and process plumbing (stdlib only, run as root).

A `Lab` is one isolated Ethernet segment made of network namespaces, created for one scenario
and deleted after it:

    <prefix>-sw      bridge br0 (STP off, multicast snooping off), one veth port per host
    <prefix>-<host>  interface civ0: 198.18.S.N/24 (S the lab's subnet, 0 unless asked),
                     fd00:198:18::N/64 (nodad) and an fe80:: link-local address (accept_dad=0),
                     MAC 02:00:c6:12:S:N (hex), a 224.0.0.0/4 route, lo up

Nothing is ever created in, or sent from, the root namespace: every link lives inside the
lab's namespaces, whose names carry the run's unique prefix.

`JsonProc` runs one process inside a host and turns each line it prints into an event dict
(JSON lines as they are, other lines through a parser), with `wait_for(match, timeout)`. The
Ciao agent, the python-zeroconf and avahi peers and `avahi-browse` are all driven through it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from typing import Callable

IFNAME = "civ0"
V4PREFIX = "198.18"                 # 198.18.0.0/15: every lab's addresses
V4NET = f"{V4PREFIX}.0"             # the /24 of a lab on the default subnet
V6NET = "fd00:198:18:"
HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    """A scenario's expectation did not hold; the message says what was expected and seen."""


def sh(*args: str, check: bool = True, input: str | None = None) -> str:
    """Run one command (in the root namespace: only `ip`/`nft` management calls), return stdout."""
    r = subprocess.run(args, input=input, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return r.stdout


# ---------------------------------------------------------------------------- processes

class JsonProc:
    """A process whose stdout lines become events; stdin takes JSON commands.

    Every line is also appended to `<logdir>/<name>.log` with its arrival time, so a failing
    scenario can show what the process said.
    """

    def __init__(self, name: str, argv: list[str], logdir: str, env: dict | None = None,
                 parse: Callable[[str], dict | None] | None = None, stdin: bool = True):
        self.name = name
        self.events: list[dict] = []
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._parse = parse
        self.log_path = os.path.join(logdir, f"{name}.log")
        self._log = open(self.log_path, "a", buffering=1)
        self._log.write(f"# {' '.join(argv)}\n")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, bufsize=1, env=env, start_new_session=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            self._log.write(f"{time.monotonic():.3f} {line}\n")
            ev = None
            if line.startswith("{"):
                try:
                    ev = json.loads(line)
                except ValueError:
                    ev = None
            if ev is None and self._parse is not None:
                ev = self._parse(line)
            with self._cond:
                self.lines.append(line)
                if ev is not None:
                    ev.setdefault("t", time.monotonic())
                    self.events.append(ev)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def send(self, **cmd) -> None:
        """Write one JSON command line."""
        line = json.dumps(cmd)
        self._log.write(f"{time.monotonic():.3f} >>> {line}\n")
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise Failure(f"{self.name} is not running (stdin closed: {e})\n{self.tail()}")

    def mark(self) -> int:
        """Index of the next event: pass it as `after` to wait only for later events."""
        with self._cond:
            return len(self.events)

    def select(self, match, after: int = 0) -> list[dict]:
        """All events (from index `after`) that match."""
        pred = matcher(match)
        with self._cond:
            return [e for e in self.events[after:] if pred(e)]

    def wait_for(self, match, timeout: float, after: int = 0, what: str | None = None) -> dict:
        """The first event (from index `after`) that matches, waiting at most `timeout` s.

        `match` is a dict of required field values or a predicate. Raises `Failure` with
        the process's recent output when nothing matches in time or the process exits.
        """
        pred = matcher(match)
        deadline = time.monotonic() + timeout
        i = after
        with self._cond:
            while True:
                while i < len(self.events):
                    if pred(self.events[i]):
                        return self.events[i]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    break
                self._cond.wait(min(left, 0.2))
        state = "timed out" if self.proc.poll() is None else f"exited with {self.proc.returncode}"
        raise Failure(f"{self.name}: no {what or describe(match)} within {timeout:g} s ({state})\n"
                      + self.tail())

    def wait_all(self, match, count: int, timeout: float, key: str = "name", after: int = 0) -> float:
        """Wait until `count` distinct values of `key` appear among matching events; return the time."""
        pred = matcher(match)
        deadline = time.monotonic() + timeout
        seen: set = set()
        i = after
        with self._cond:
            while True:
                while i < len(self.events):
                    e = self.events[i]
                    if pred(e):
                        seen.add(e.get(key))
                        if len(seen) >= count:
                            return e["t"]
                    i += 1
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    break
                self._cond.wait(min(left, 0.2))
        raise Failure(f"{self.name}: only {len(seen)} of {count} distinct {describe(match)} within "
                      f"{timeout:g} s\n" + self.tail())

    def tail(self, n: int = 25) -> str:
        """The last `n` lines the process printed, indented, for failure messages.

        After a Swift crash report, the lines before the crash and the crashed thread's frames
        are shown instead (the report's registers and images say little).
        """
        with self._cond:
            lines = list(self.lines)
        crash = next((i for i, l in enumerate(lines) if "*** Program crashed" in l), None)
        if crash is None:
            lines = lines[-n:]
        else:
            start = next((i for i, l in enumerate(lines) if l.rstrip().endswith(" crashed:")), crash)
            end = next((i for i in range(start + 2, len(lines)) if not lines[i].strip()), len(lines))
            lines = lines[max(0, crash - n // 2):crash + 1] + lines[start:end]
        return "\n".join(f"    {self.name}| {l}" for l in lines) or f"    {self.name}| (no output)"

    def wait_exit(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, grace: float = 3.0) -> None:
        """SIGTERM the process (if running), wait `grace` s, then SIGKILL it."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass
            if self.wait_exit(grace) is None:
                self.proc.kill()
                self.wait_exit(2)
        self._reader.join(2)
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
        self._log.close()


def parse_log(line: str) -> dict:
    """Any output line as a `log` event (the `parse` of daemons and captures)."""
    return {"event": "log", "line": line}


def log(msg: str) -> None:
    """One progress line on stdout, with the wall-clock time."""
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def first_line(*cmd: str) -> str:
    """The first line a command prints (stdout, else stderr), or "?" if it cannot run."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "?"


def matcher(match) -> Callable[[dict], bool]:
    if callable(match):
        return match
    return lambda e: all(e.get(k) == v for k, v in match.items())


def describe(match) -> str:
    if callable(match):
        return getattr(match, "__doc__", None) or "matching event"
    return "event " + json.dumps(match, ensure_ascii=False)


# ---------------------------------------------------------------------------- the lab

class Host:
    """One namespace with one link into the lab's bridge."""

    def __init__(self, lab: "Lab", name: str, num: int):
        self.lab, self.name, self.num = lab, name, num
        self.ns = f"{lab.prefix}-{name}"
        self.v4 = f"{lab.v4net}.{num}"
        self.v6 = f"{V6NET}:{num:x}"
        self.dir = os.path.join(lab.workdir, name)
        # D-Bus address of this host's own bus (it exists once its avahi runs). Always set, so no
        # avahi client in the lab can reach the machine's system bus, which could start an
        # avahi-daemon in the root namespace by D-Bus activation.
        self.bus = f"unix:path={os.path.join(self.dir, 'dbus', 'system_bus_socket')}"

    def argv(self, *cmd: str) -> list[str]:
        """argv that runs `cmd` inside this host (`ip netns exec` execs, so the PID is cmd's),
        with DBUS_SYSTEM_BUS_ADDRESS set to the host's own bus."""
        return ["ip", "netns", "exec", self.ns, "env", f"DBUS_SYSTEM_BUS_ADDRESS={self.bus}", *cmd]

    def run(self, *cmd: str, timeout: float = 30, check: bool = True) -> str:
        """Run a short command inside this host and return its stdout."""
        r = subprocess.run(self.argv(*cmd), capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"[{self.name}] {' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
        return r.stdout

    def spawn(self, name: str, *cmd: str, parse=None, stdin: bool = True) -> JsonProc:
        """Start a long-running process inside this host; the lab stops it on close."""
        p = JsonProc(f"{self.name}.{name}", self.argv(*cmd), self.lab.workdir, parse=parse, stdin=stdin)
        self.lab.procs.append(p)
        return p

    def link_local(self) -> str:
        out = self.run("ip", "-6", "-o", "addr", "show", "dev", IFNAME, "scope", "link")
        return out.split()[3].split("/")[0] if out.strip() else ""

    # -- link changes (scenario flap) --
    def link(self, up: bool) -> None:
        self.run("ip", "link", "set", "dev", IFNAME, "up" if up else "down")
        if up:
            self.run("ip", "route", "replace", "224.0.0.0/4", "dev", IFNAME)

    def addresses(self, present: bool) -> None:
        verb = "add" if present else "del"
        self.run("ip", "addr", verb, f"{self.v4}/24", "dev", IFNAME)
        self.run("ip", "-6", "addr", verb, f"{self.v6}/64", "dev", IFNAME, *(["nodad"] if present else []))

    def nft(self, rules: str) -> None:
        """Load nftables rules inside this host."""
        r = subprocess.run(self.argv("nft", "-f", "-"), input=rules, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"[{self.name}] nft failed: {r.stderr.strip()}")

    def unplug(self) -> None:
        """Drop every packet this host sends or receives on its link, as a device unplugged or
        switched off: its processes run on, and nothing they send (goodbyes included) gets out."""
        self.nft(f'table inet unplugged {{\n chain out {{ type filter hook output priority 0; policy accept; '
                 f'oifname "{IFNAME}" drop; }}\n chain in {{ type filter hook input priority 0; policy accept; '
                 f'iifname "{IFNAME}" drop; }}\n}}\n')

    # -- random loss (scenario scale) --
    def loss(self, percent: int) -> None:
        """Drop `percent` % of the packets crossing this host's link, both ways (nftables).

        This kernel may lack sch_netem; netdev ingress hooks with `numgen random` work
        everywhere: one table on civ0 (inbound) and one on the host's bridge port (outbound).
        """
        for ns, dev, table in ((self.ns, IFNAME, "ciaoloss"), (self.lab.sw, self.port, f"ciaoloss_{self.name}")):
            subprocess.run(["ip", "netns", "exec", ns, "nft", "delete", "table", "netdev", table],
                           capture_output=True)
            if percent:
                rules = (f'table netdev {table} {{\n chain in {{\n  type filter hook ingress device "{dev}" '
                         f'priority 0; policy accept;\n  numgen random mod 100 < {percent} counter drop\n }}\n}}\n')
                sh("ip", "netns", "exec", ns, "nft", "-f", "-", input=rules)

    def dropped(self) -> int:
        """Packets the loss rules of this host have dropped so far (both directions)."""
        total = 0
        for ns, table in ((self.ns, "ciaoloss"), (self.lab.sw, f"ciaoloss_{self.name}")):
            out = subprocess.run(["ip", "netns", "exec", ns, "nft", "list", "table", "netdev", table],
                                 capture_output=True, text=True).stdout
            total += sum(int(n) for n in re.findall(r"counter packets (\d+)", out))
        return total

    @property
    def port(self) -> str:
        return f"p{self.num}"


class Lab:
    """Namespaces for one scenario; use as a context manager (everything is removed on exit).

    Hosts are numbered from 1 in the order given; `subnet` (0-255) is the third byte of their
    IPv4 addresses and the fifth of their MACs, so labs on different subnets never share either.
    """

    def __init__(self, prefix: str, workdir: str, hosts: list[str], subnet: int = 0):
        if not 0 <= subnet <= 255:
            raise ValueError(f"lab subnet {subnet} is not 0-255")
        self.prefix = prefix
        self.subnet = subnet
        self.v4net = f"{V4PREFIX}.{subnet}"
        self.workdir = workdir
        self.sw = f"{prefix}-sw"
        self.procs: list[JsonProc] = []
        self.hosts: dict[str, Host] = {}
        os.makedirs(workdir, exist_ok=True)
        os.chmod(workdir, 0o755)
        try:
            self._make_switch()
            for i, h in enumerate(hosts, start=1):
                self.hosts[h] = self._make_host(h, i)
            self._settle()
        except BaseException:
            self.close()
            raise

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]

    def __enter__(self) -> "Lab":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def namespaces(self) -> list[str]:
        return [self.sw] + [h.ns for h in self.hosts.values()]

    def _make_switch(self) -> None:
        sh("ip", "netns", "add", self.sw)
        sh("ip", "netns", "exec", self.sw, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
           "net.ipv6.conf.default.disable_ipv6=1")
        sh("ip", "-n", self.sw, "link", "set", "lo", "up")
        sh("ip", "-n", self.sw, "link", "add", "br0", "type", "bridge", "stp_state", "0",
           "forward_delay", "0", "mcast_snooping", "0")
        sh("ip", "-n", self.sw, "link", "set", "br0", "up")

    def _make_host(self, name: str, num: int) -> Host:
        h = Host(self, name, num)
        self.hosts[name] = h                 # registered first so close() removes a half-made host
        os.makedirs(h.dir, exist_ok=True)
        os.chmod(h.dir, 0o755)
        sh("ip", "netns", "add", h.ns)
        sh("ip", "netns", "exec", h.ns, "sysctl", "-qw",
           "net.ipv6.conf.all.disable_ipv6=0", "net.ipv6.conf.default.disable_ipv6=0",
           "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
           "net.ipv6.conf.all.keep_addr_on_down=1", "net.ipv6.conf.default.keep_addr_on_down=1")
        sh("ip", "-n", h.ns, "link", "set", "lo", "up")
        self.connect(h)
        return h

    def connect(self, h: Host) -> None:
        """Give `h` its link into the bridge (again, after `disconnect`)."""
        num = h.num
        # the veth is created inside the host and its peer moved straight into the switch:
        # no interface ever exists in the root namespace
        sh("ip", "-n", h.ns, "link", "add", IFNAME, "address", f"02:00:c6:12:{self.subnet:02x}:{num:02x}",
           "type", "veth", "peer", "name", h.port, "netns", self.sw)
        sh("ip", "-n", self.sw, "link", "set", h.port, "master", "br0", "up")
        sh("ip", "netns", "exec", h.ns, "sysctl", "-qw", f"net.ipv6.conf.{IFNAME}.accept_dad=0")
        sh("ip", "-n", h.ns, "link", "set", IFNAME, "multicast", "on", "up")
        sh("ip", "-n", h.ns, "addr", "add", f"{h.v4}/24", "dev", IFNAME)
        sh("ip", "-n", h.ns, "-6", "addr", "add", f"{h.v6}/64", "dev", IFNAME, "nodad")
        sh("ip", "-n", h.ns, "route", "add", "224.0.0.0/4", "dev", IFNAME)

    def disconnect(self, h: Host) -> None:
        """Delete `h`'s link (both ends of the veth): it keeps only loopback."""
        sh("ip", "-n", h.ns, "link", "del", IFNAME)

    def _settle(self) -> None:
        """Wait (bounded) until every host has a non-tentative link-local address."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if all(h.link_local() and "tentative" not in sh("ip", "-n", h.ns, "-6", "addr", "show", "dev", IFNAME)
                   for h in self.hosts.values()):
                return
            time.sleep(0.1)
        raise RuntimeError("lab: IPv6 link-local addresses did not come up")

    # -- avahi-daemon with a private D-Bus --
    def start_avahi(self, host: Host, host_name: str | None = None, ipv6: bool = True, hinfo: bool = False,
                    wide_area_resolver: str | None = None) -> JsonProc:
        """Start a private system bus and avahi-daemon in `host`; wait until it is running.

        avahi uses `host_name` (by default `<host>-avahi`; the machine's own name, as on a
        desktop, when asked), over IPv4 alone unless `ipv6`, with a HINFO record if `hinfo`, and
        with wide-area browsing on, through the servers of the resolv.conf file
        `wide_area_resolver`, when given. It runs in a private mount namespace with
        /run/avahi-daemon, /etc/avahi/services (and then /etc/resolv.conf) bind-mounted from the
        host's work directory, so the machine's own are never touched. Returns the daemon, whose
        log lines are its events.
        """
        d = host.dir
        for sub in ("dbus", "avahi-run", "services"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        os.chmod(os.path.join(d, "dbus"), 0o755)
        sock = os.path.join(d, "dbus", "system_bus_socket")
        with open(os.path.join(d, "dbus.conf"), "w") as f:
            f.write(DBUS_CONF.format(sock=sock))
        with open(os.path.join(d, "avahi-daemon.conf"), "w") as f:
            f.write(AVAHI_CONF.format(host=host_name or f"{host.name}-avahi", ifname=IFNAME,
                                      ipv6="yes" if ipv6 else "no", hinfo="yes" if hinfo else "no",
                                      wide_area="yes" if wide_area_resolver else "no"))
        dbus = host.spawn("dbus", "dbus-daemon", f"--config-file={d}/dbus.conf", "--nofork", "--nopidfile",
                          stdin=False)
        deadline = time.monotonic() + 5
        while not os.path.exists(sock):
            if time.monotonic() > deadline or dbus.proc.poll() is not None:
                raise RuntimeError(f"dbus-daemon in {host.name} did not start\n{dbus.tail()}")
            time.sleep(0.05)
        host.bus = f"unix:path={sock}"
        os.makedirs("/run/avahi-daemon", exist_ok=True)      # mount point only
        script = ('mount --bind "$1/avahi-run" /run/avahi-daemon && '
                  'mount --bind "$1/services" /etc/avahi/services && '
                  + (f'mount --bind "{wide_area_resolver}" /etc/resolv.conf && ' if wide_area_resolver else '') +
                  'exec avahi-daemon -f "$1/avahi-daemon.conf" --no-drop-root --no-chroot --no-rlimits --no-proc-title')
        avahi = host.spawn("avahi-daemon", "unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", d,
                           stdin=False, parse=parse_log)
        avahi.wait_for(lambda e: "Server startup complete" in e.get("line", ""), 15,
                       what="'Server startup complete' from avahi-daemon")
        return avahi

    # -- Apple's mDNSResponder --
    def start_mdnsd(self, host: Host, mdns_dir: str, host_name: str | None = None, log_file: bool = False,
                    resolv_conf: str | None = None) -> JsonProc:
        """Start Apple's `mdnsd` (built into `mdns_dir`/bin) in `host`, in private mount and UTS
        namespaces: its own host name (`<host>-mdns` by default) and its client socket under the
        host's work directory, bind-mounted over /run, so that several run side by side and the
        machine's own /run is untouched. `dns_sd(host, ...)` runs its client against it.

        Its log lines are the returned process's events, or, with `log_file`, go straight to
        `<host dir>/mdnsd.log` (appended; the process then has no events): the daemon logs every
        record it cannot fit into a packet, 10^5 lines for 1000 services. Called again for the
        same host (once the previous daemon has stopped), it starts a new daemon with an empty
        cache on the same socket path. With `resolv_conf`, that file is bind-mounted over
        /etc/resolv.conf in the daemon's private mount namespace: its unicast DNS servers."""
        run = os.path.join(host.dir, "mdns-run")
        os.makedirs(run, exist_ok=True)
        os.chmod(run, 0o755)
        sock = os.path.join(run, "mdnsd")
        if os.path.exists(sock):                 # a previous daemon's: the wait below needs the new one
            os.unlink(sock)
        script = 'mount --bind "$1" /run && hostname "$2" && exec "$3" -debug'
        if log_file:
            script += ' >>"$4" 2>&1'
        if resolv_conf:
            script = 'mount --bind "$5" /etc/resolv.conf && ' + script
        p = host.spawn("mdnsd", "unshare", "-m", "-u", "--propagation", "private", "sh", "-c", script, "sh", run,
                       host_name or f"{host.name}-mdns", os.path.join(mdns_dir, "bin", "mdnsd"),
                       os.path.join(host.dir, "mdnsd.log"), resolv_conf or "", stdin=False,
                       parse=parse_log)
        deadline = time.monotonic() + 10
        while not os.path.exists(sock):
            if time.monotonic() > deadline or p.proc.poll() is not None:
                raise RuntimeError(f"mdnsd in {host.name} did not start\n{p.tail()}")
            time.sleep(0.05)
        host.mdns = (mdns_dir, sock)
        # The socket exists before the daemon takes requests: wait until it answers one.
        while True:
            r = subprocess.run(host.argv("env", f"DNSSD_UDS_PATH={sock}", f"LD_LIBRARY_PATH={os.path.join(mdns_dir, 'lib')}",
                                         os.path.join(mdns_dir, "bin", "dns-sd"), "-V"),
                               capture_output=True, text=True, timeout=10)
            if "version" in r.stdout.lower() and "not running" not in r.stdout.lower():
                return p
            if time.monotonic() > deadline:
                raise RuntimeError(f"mdnsd in {host.name} does not answer: {r.stdout.strip()}\n{p.tail()}")
            time.sleep(0.2)

    def dns_sd(self, host: Host, name: str, *args: str) -> JsonProc:
        """A running `dns-sd ARGS` against `host`'s mdnsd; each line it prints is an event."""
        mdns_dir, sock = host.mdns
        return host.spawn(name, "env", f"DNSSD_UDS_PATH={sock}", f"LD_LIBRARY_PATH={os.path.join(mdns_dir, 'lib')}",
                          os.path.join(mdns_dir, "bin", "dns-sd"), *args, stdin=False,
                          parse=lambda l: {"event": "line", "line": l})

    def nss_run(self, host: Host, *cmd: str, timeout: float = 30) -> subprocess.CompletedProcess:
        """Run `cmd` in `host` with nss-mdns: in a private mount namespace, an nsswitch.conf of the
        lab's own ("hosts: files mdns") and the host's avahi-daemon socket are bind-mounted over
        the machine's, which stay untouched."""
        conf = os.path.join(host.dir, "nsswitch.conf")
        with open(conf, "w") as f:
            f.write("passwd: files\ngroup: files\nhosts: files mdns\n")
        script = ('mount --bind "$1/nsswitch.conf" /etc/nsswitch.conf && '
                  'mount --bind "$1/avahi-run" /run/avahi-daemon && shift && exec "$@"')
        return subprocess.run(host.argv("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                                        host.dir, *cmd), capture_output=True, text=True, timeout=timeout)

    def close(self) -> None:
        """Stop every process started in the lab (reverse order), then delete the namespaces."""
        for p in reversed(self.procs):
            p.stop(grace=5)
        existing = set(sh("ip", "netns", "list", check=False).split())
        for ns in self.namespaces():
            if ns not in existing:
                continue
            # anything still inside our own namespaces was started by us (children of our peers)
            for pid in sh("ip", "netns", "pids", ns, check=False).split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "netns", "del", ns, check=False)


DBUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={sock}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/> <allow own="*"/>
    <allow send_type="method_call"/> <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/> <allow receive_type="method_return"/>
    <allow receive_type="error"/> <allow receive_type="signal"/>
  </policy>
  <limit name="max_replies_per_connection">16384</limit>
  <limit name="max_match_rules_per_connection">16384</limit>
</busconfig>
"""

AVAHI_CONF = """[server]
host-name={host}
domain-name=local
use-ipv4=yes
use-ipv6={ipv6}
allow-interfaces={ifname}
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
objects-per-client-max=8192
cache-entries-max=16384
[wide-area]
enable-wide-area={wide_area}
[publish]
publish-hinfo={hinfo}
publish-workstation=no
publish-addresses=yes
publish-aaaa-on-ipv4=yes
publish-a-on-ipv6=no
[reflector]
[rlimits]
"""


# ---------------------------------------------------------------------------- TXT in the agent's JSON form

def show_txt(txt: dict | None) -> str:
    """Readable TXT for messages: k=v with non-printable bytes as \\xNN, flags bare."""
    if txt is None:
        return "(none)"
    parts = []
    for k, v in txt.items():
        if v is None:
            parts.append(k)
        else:
            b = bytes.fromhex(v)
            parts.append(k + "=" + "".join(chr(c) if 0x20 <= c < 0x7F else f"\\x{c:02x}" for c in b))
    return "{" + ", ".join(parts) + "}"
