"""An mDNSResponder client driven like the Ciao agent: JSON commands in, JSON events out.

Drives the host's `mdnsd` through its client library, libdns_sd.so, with ctypes (stdlib only):
every operation shares one connection to the daemon (DNSServiceCreateConnection and
kDNSServiceFlagsShareConnection), so a thousand registrations cost one socket, and a select()
loop over that socket and stdin calls DNSServiceProcessResult. Run inside a lab host with the
daemon's socket in DNSSD_UDS_PATH:
    ip netns exec NS env DNSSD_UDS_PATH=SOCK python3 mdns_peer.py --lib DIR/lib/libdns_sd.so [--host NAME]

Every event line carries "t" = time.monotonic() (CLOCK_MONOTONIC, one clock for all
namespaces) and "event". TXT is {key: lowercase hex of the value, or null for a flag}.

Commands and their events:
  {"cmd":"publish","id":..,"name":..,"type":"_x._tcp","port":N,"txt":{..},"rename":false}
        -> published {id, name (the name in use), host} once mdnsd has probed it
           | publishFailed {id, error} (rename false = kDNSServiceFlagsNoAutoRename: a conflict fails)
  {"cmd":"updateTXT","id":..,"txt":{..}}   -> txtUpdated {id} | error {id, message}
  {"cmd":"unpublish","id":..}              -> unpublished {id} (the registration is cancelled:
                                              mdnsd sends the goodbyes)
  {"cmd":"browse","id":..,"type":..}       -> browsing {id}; found / removed {id, name, type, domain,
        interface}; resolved {id, name, type, host, port, addresses, txt, interface} once the
        service's SRV and TXT and one address of its host are known, again when its TXT, host or
        port change (an address arriving later only joins the next event's list)
  {"cmd":"stopBrowse","id":..}             -> stopped {id}
  {"cmd":"resolve","id":..,"name":..,"type":..,"timeout":S}
        -> resolved {...} | resolveFailed {id, name}
  {"cmd":"quit"}, EOF or SIGTERM           -> the connection is closed (mdnsd withdraws every
                                              registration, with goodbyes), bye
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import select
import signal
import socket
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dnsmsg import txt_strings  # noqa: E402

FLAGS_ADD = 0x2
FLAGS_NO_AUTO_RENAME = 0x8
FLAGS_SHARE_CONNECTION = 0x4000
PROTOCOL_IPV4_IPV6 = 0x1 | 0x2

Ref = ctypes.c_void_p
RegisterReply = ctypes.CFUNCTYPE(None, Ref, ctypes.c_uint32, ctypes.c_int32, ctypes.c_char_p, ctypes.c_char_p,
                                 ctypes.c_char_p, ctypes.c_void_p)
BrowseReply = ctypes.CFUNCTYPE(None, Ref, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int32, ctypes.c_char_p,
                               ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p)
ResolveReply = ctypes.CFUNCTYPE(None, Ref, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int32, ctypes.c_char_p,
                                ctypes.c_char_p, ctypes.c_uint16, ctypes.c_uint16, ctypes.c_void_p, ctypes.c_void_p)
AddrInfoReply = ctypes.CFUNCTYPE(None, Ref, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_int32, ctypes.c_char_p,
                                 ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p)


def emit(event: str, **kw) -> None:
    sys.stdout.write(json.dumps({"t": time.monotonic(), "event": event, **kw}, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def txt_rdata(txt: dict | None) -> bytes:
    """The TXT RDATA of {key: hex or None}: length-prefixed strings, in the dict's order."""
    out = b""
    for k, v in (txt or {}).items():
        s = k.encode() + (b"" if v is None else b"=" + bytes.fromhex(v))
        out += bytes([len(s)]) + s
    return out


def rdata_txt(rdata: bytes) -> dict:
    """{key: hex or None} of TXT RDATA (a lone empty string, the empty TXT record, gives {})."""
    out: dict = {}
    for s in txt_strings(rdata):
        if s:
            k, eq, v = s.partition(b"=")
            out.setdefault(k.decode("utf-8", "replace"), v.hex() if eq else None)
    return out


def sockaddr_text(ptr: int) -> str | None:
    """The address of a struct sockaddr_in / sockaddr_in6 (Linux layout) as text; link-local
    IPv6 with its %interface."""
    family = int.from_bytes(ctypes.string_at(ptr, 2), sys.byteorder)
    if family == socket.AF_INET:
        return socket.inet_ntop(socket.AF_INET, ctypes.string_at(ptr + 4, 4))
    if family == socket.AF_INET6:
        raw = ctypes.string_at(ptr, 28)
        text = socket.inet_ntop(socket.AF_INET6, raw[8:24])
        scope = int.from_bytes(raw[24:28], sys.byteorder)
        if scope and text.lower().startswith("fe80"):
            try:
                text += "%" + socket.if_indextoname(scope)
            except OSError:
                text += f"%{scope}"
        return text
    return None


def bare_type(type_: str) -> str:
    """"_x._tcp", "_x._tcp." or "_x._tcp.local." -> "_x._tcp" """
    return type_.rstrip(".").removesuffix(".local")


class DNSSD:
    """libdns_sd.so's calls used here, typed, over one shared connection to the daemon."""

    def __init__(self, path: str):
        lib = ctypes.CDLL(path)
        sig = {"DNSServiceCreateConnection": [ctypes.POINTER(Ref)],
               "DNSServiceRefSockFD": [Ref],
               "DNSServiceProcessResult": [Ref],
               "DNSServiceRefDeallocate": [Ref],
               "DNSServiceGetProperty": [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)],
               "DNSServiceRegister": [ctypes.POINTER(Ref), ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p,
                                      ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint16,
                                      ctypes.c_uint16, ctypes.c_char_p, RegisterReply, ctypes.c_void_p],
               "DNSServiceUpdateRecord": [Ref, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint16, ctypes.c_char_p,
                                          ctypes.c_uint32],
               "DNSServiceBrowse": [ctypes.POINTER(Ref), ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p,
                                    ctypes.c_char_p, BrowseReply, ctypes.c_void_p],
               "DNSServiceResolve": [ctypes.POINTER(Ref), ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p,
                                     ctypes.c_char_p, ctypes.c_char_p, ResolveReply, ctypes.c_void_p],
               "DNSServiceGetAddrInfo": [ctypes.POINTER(Ref), ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                         ctypes.c_char_p, AddrInfoReply, ctypes.c_void_p]}
        restype = {"DNSServiceRefSockFD": ctypes.c_int, "DNSServiceRefDeallocate": None}
        for name, argtypes in sig.items():
            f = getattr(lib, name)
            f.argtypes = argtypes
            f.restype = restype.get(name, ctypes.c_int32)        # DNSServiceErrorType
        self.lib = lib
        self.main = Ref()
        check("DNSServiceCreateConnection", lib.DNSServiceCreateConnection(ctypes.byref(self.main)))
        self.fd = lib.DNSServiceRefSockFD(self.main)

    def sub(self) -> Ref:
        """A copy of the main reference, for one operation sharing its connection."""
        return Ref(self.main.value)

    def version(self) -> str:
        """The daemon's DaemonVersion property (its dns_sd API version), as A.B.C."""
        v, size = ctypes.c_uint32(), ctypes.c_uint32(4)
        check("DNSServiceGetProperty", self.lib.DNSServiceGetProperty(b"DaemonVersion", ctypes.byref(v),
                                                                      ctypes.byref(size)))
        return f"{v.value // 10000}.{v.value // 100 % 100}.{v.value % 100}"

    def process(self) -> int:
        return self.lib.DNSServiceProcessResult(self.main)

    def cancel(self, ref: Ref) -> None:
        """Ends one operation on the shared connection (never the main reference)."""
        self.lib.DNSServiceRefDeallocate(ref)

    def close(self) -> None:
        """Closes the connection: the daemon ends every operation still on it."""
        self.lib.DNSServiceRefDeallocate(self.main)


class DNSSDError(Exception):
    """A libdns_sd call returned an error code."""


def check(call: str, code: int) -> None:
    if code != 0:
        raise DNSSDError(f"{call} failed: {code}")


class Service:
    """One service seen by one browse: the interfaces it is on, its resolve, what it resolved to."""

    def __init__(self, name: str, domain: str):
        self.name, self.domain = name, domain
        self.interfaces: set[int] = set()
        self.resolve: Ref | None = None
        self.interface = 0
        self.host: str | None = None
        self.port: int | None = None
        self.txt: dict | None = None
        self.reported: tuple | None = None      # (host, port, txt) of the last resolved event


class Peer:
    """The commands on one shared connection. Operations to end go to `doomed`, ended by
    `end_doomed` after each command and each DNSServiceProcessResult: a callback, which runs
    inside DNSServiceProcessResult, never ends an operation itself."""

    def __init__(self, sd: DNSSD, host: str):
        self.sd, self.host = sd, host
        self.regs: dict[str, Ref] = {}                       # publish id -> registration
        self.published: set[str] = set()
        self.browses: dict[str, tuple[Ref, str, dict[str, Service]]] = {}   # id -> (ref, type, services)
        self.hosts: dict[tuple[str, int], tuple[Ref, list[str], list[tuple[str, str]]]] = {}
        # (host, interface) -> (GetAddrInfo ref, addresses, waiting (browse id, name))
        self.oneshots: dict[str, tuple[Ref, str, str, float]] = {}    # resolve id -> (ref, name, type, deadline)
        self.pending: dict[str, tuple[int, str, int, dict]] = {}      # resolve id -> (interface, host, port, txt)
        self.doomed: list[Ref] = []
        self.contexts: dict[int, tuple] = {}
        self.next_context = 1
        # the C callbacks, kept alive as long as the peer
        self.c_register = RegisterReply(self.on_register)
        self.c_browse = BrowseReply(self.on_browse)
        self.c_resolve = ResolveReply(self.on_resolve)
        self.c_addr = AddrInfoReply(self.on_addr)

    def context(self, *what) -> ctypes.c_void_p:
        """A context pointer for a callback: a number standing for `what`."""
        n = self.next_context
        self.next_context += 1
        self.contexts[n] = what
        return ctypes.c_void_p(n)

    # -- publishing --
    def publish(self, c: dict) -> None:
        ref = self.sd.sub()
        flags = FLAGS_SHARE_CONNECTION | (0 if c.get("rename", False) else FLAGS_NO_AUTO_RENAME)
        rdata = txt_rdata(c.get("txt"))
        code = self.sd.lib.DNSServiceRegister(ctypes.byref(ref), flags, 0, c["name"].encode(),
                                              bare_type(c["type"]).encode(), b"local.", None,
                                              socket.htons(c["port"]), len(rdata), rdata, self.c_register,
                                              self.context(c["id"]))
        if code != 0:
            emit("publishFailed", id=c["id"], error=f"DNSServiceRegister {code}")
            return
        self.regs[c["id"]] = ref

    def on_register(self, ref, flags, code, name, regtype, domain, ctx) -> None:
        (id_,) = self.contexts[ctx]
        if code != 0:
            if id_ in self.regs:
                self.doomed.append(self.regs.pop(id_))
            self.published.discard(id_)
            emit("publishFailed", id=id_, error=f"registration error {code}")
        elif flags & FLAGS_ADD and id_ not in self.published:
            self.published.add(id_)
            emit("published", id=id_, name=name.decode("utf-8", "replace"), host=self.host)

    def update_txt(self, c: dict) -> None:
        rdata = txt_rdata(c.get("txt"))
        code = self.sd.lib.DNSServiceUpdateRecord(self.regs[c["id"]], None, 0, len(rdata), rdata, 0)
        if code != 0:
            emit("error", id=c["id"], message=f"DNSServiceUpdateRecord {code}")
        else:
            emit("txtUpdated", id=c["id"])

    def unpublish(self, c: dict) -> None:
        self.sd.cancel(self.regs.pop(c["id"]))
        self.published.discard(c["id"])
        emit("unpublished", id=c["id"])

    # -- browsing and resolving --
    def browse(self, c: dict) -> None:
        ref = self.sd.sub()
        check("DNSServiceBrowse", self.sd.lib.DNSServiceBrowse(ctypes.byref(ref), FLAGS_SHARE_CONNECTION, 0,
                                                               bare_type(c["type"]).encode(), b"local.",
                                                               self.c_browse, self.context(c["id"])))
        self.browses[c["id"]] = (ref, c["type"], {})
        emit("browsing", id=c["id"])

    def on_browse(self, ref, flags, interface, code, name, regtype, domain, ctx) -> None:
        (id_,) = self.contexts[ctx]
        if id_ not in self.browses or code != 0:
            return
        _, type_, services = self.browses[id_]
        name_s, domain_s = name.decode("utf-8", "replace"), domain.decode("utf-8", "replace")
        if flags & FLAGS_ADD:
            s = services.get(name_s)
            if s is None:
                s = services[name_s] = Service(name_s, domain_s)
                emit("found", id=id_, name=name_s, type=type_, domain=domain_s, interface=if_name(interface))
            s.interfaces.add(interface)
            if s.resolve is None:
                s.interface = interface
                s.resolve = self.sd.sub()
                check("DNSServiceResolve", self.sd.lib.DNSServiceResolve(
                    ctypes.byref(s.resolve), FLAGS_SHARE_CONNECTION, interface, name, regtype, domain,
                    self.c_resolve, self.context("browse", id_, name_s)))
        else:
            s = services.get(name_s)
            if s is None:
                return
            s.interfaces.discard(interface)
            if not s.interfaces:
                del services[name_s]
                if s.resolve is not None:
                    self.doomed.append(s.resolve)
                self.drop_waiters(lambda w: w == (id_, name_s))
                emit("removed", id=id_, name=name_s, type=type_, domain=s.domain, interface=if_name(interface))

    def on_resolve(self, ref, flags, interface, code, fullname, target, port, txt_len, txt, ctx) -> None:
        what = self.contexts[ctx]
        if code != 0:
            return
        host = target.decode("utf-8", "replace")
        rdata = ctypes.string_at(txt, txt_len) if txt_len else b""
        if what[0] == "oneshot":
            self.oneshot_resolved(what[1], interface, host, socket.ntohs(port), rdata_txt(rdata))
            return
        _, id_, name = what
        s = self.browses.get(id_, (None, None, {}))[2].get(name)
        if s is None:
            return
        s.host, s.port, s.txt = host, socket.ntohs(port), rdata_txt(rdata)
        self.want_addresses(host, s.interface, (id_, name))
        self.report(id_, s)

    def want_addresses(self, host: str, interface: int, waiter: tuple[str, str]) -> None:
        """Have a GetAddrInfo running for `host` on `interface` (one per host, shared by all its
        services) and `waiter` (browse id, name, or "oneshot", resolve id) told of its addresses."""
        key = (host, interface)
        if key not in self.hosts:
            ref = self.sd.sub()
            check("DNSServiceGetAddrInfo", self.sd.lib.DNSServiceGetAddrInfo(
                ctypes.byref(ref), FLAGS_SHARE_CONNECTION, interface, PROTOCOL_IPV4_IPV6, host.encode(),
                self.c_addr, self.context(*key)))
            self.hosts[key] = (ref, [], [])
        waiting = self.hosts[key][2]
        if waiter not in waiting:
            waiting.append(waiter)

    def on_addr(self, ref, flags, interface, code, hostname, address, ttl, ctx) -> None:
        key = self.contexts[ctx]
        if code != 0 or not address or key not in self.hosts:
            return
        text = sockaddr_text(address)
        _, addresses, waiting = self.hosts[key]
        if text is None:
            return
        if not flags & FLAGS_ADD:
            if text in addresses:
                addresses.remove(text)
            return
        if text in addresses:
            return
        addresses.append(text)
        if len(addresses) > 1:
            return
        for id_, name in list(waiting):
            if id_ == "oneshot":
                self.oneshot_addressed(name)
            elif (s := self.browses.get(id_, (None, None, {}))[2].get(name)) is not None:
                self.report(id_, s)

    def report(self, id_: str, s: Service) -> None:
        """A resolved event for `s` if it is complete and not yet reported as it is now."""
        addresses = self.hosts.get((s.host, s.interface), (None, [], []))[1]
        now = (s.host, s.port, json.dumps(s.txt))
        if not addresses or s.reported == now:
            return
        s.reported = now
        emit("resolved", id=id_, name=s.name, type=self.browses[id_][1], host=s.host, port=s.port,
             addresses=list(addresses), txt=s.txt, interface=if_name(s.interface))

    def stop_browse(self, c: dict) -> None:
        ref, _, services = self.browses.pop(c["id"])
        self.doomed.append(ref)
        self.doomed += [s.resolve for s in services.values() if s.resolve is not None]
        self.drop_waiters(lambda w: w[0] == c["id"])
        emit("stopped", id=c["id"])

    def drop_waiters(self, gone: Callable[[tuple[str, str]], bool]) -> None:
        """Forget every waiter for which `gone` holds; a GetAddrInfo left without any is ended
        (after the callback, if inside one)."""
        for key in list(self.hosts):
            ref, _, waiting = self.hosts[key]
            waiting[:] = [w for w in waiting if not gone(w)]
            if not waiting:
                del self.hosts[key]
                self.doomed.append(ref)

    # -- a one-shot resolve --
    def resolve(self, c: dict) -> None:
        ref = self.sd.sub()
        check("DNSServiceResolve", self.sd.lib.DNSServiceResolve(
            ctypes.byref(ref), FLAGS_SHARE_CONNECTION, 0, c["name"].encode(), bare_type(c["type"]).encode(),
            b"local.", self.c_resolve, self.context("oneshot", c["id"])))
        self.oneshots[c["id"]] = (ref, c["name"], c["type"], time.monotonic() + c.get("timeout", 5))

    def oneshot_resolved(self, id_: str, interface: int, host: str, port: int, txt: dict) -> None:
        if id_ not in self.oneshots:
            return
        self.pending[id_] = (interface, host, port, txt)
        self.want_addresses(host, interface, ("oneshot", id_))
        self.oneshot_addressed(id_)

    def oneshot_addressed(self, id_: str) -> None:
        if id_ not in self.oneshots or id_ not in self.pending:
            return
        interface, host, port, txt = self.pending[id_]
        addresses = self.hosts[(host, interface)][1]
        if not addresses:
            return
        ref, name, type_, _ = self.oneshots.pop(id_)
        del self.pending[id_]
        self.doomed.append(ref)
        emit("resolved", id=id_, name=name, type=bare_type(type_), host=host, port=port, addresses=list(addresses),
             txt=txt, interface=if_name(interface))
        self.drop_waiters(lambda w: w == ("oneshot", id_))

    def expire(self) -> float | None:
        """Fail the one-shot resolves past their deadline; seconds until the next deadline."""
        now = time.monotonic()
        for id_, (ref, name, _, deadline) in list(self.oneshots.items()):
            if deadline <= now:
                del self.oneshots[id_]
                self.pending.pop(id_, None)
                self.doomed.append(ref)
                self.drop_waiters(lambda w, id_=id_: w == ("oneshot", id_))
                emit("resolveFailed", id=id_, name=name)
        self.end_doomed()
        return min((d for *_, d in self.oneshots.values()), default=None)

    def end_doomed(self) -> None:
        while self.doomed:
            self.sd.cancel(self.doomed.pop())

    def handle(self, c: dict) -> bool:
        """Carries out one command; False for quit."""
        cmd = c.get("cmd")
        try:
            if cmd == "publish":
                self.publish(c)
            elif cmd == "updateTXT":
                self.update_txt(c)
            elif cmd == "unpublish":
                self.unpublish(c)
            elif cmd == "browse":
                self.browse(c)
            elif cmd == "stopBrowse":
                self.stop_browse(c)
            elif cmd == "resolve":
                self.resolve(c)
            elif cmd == "quit":
                return False
            else:
                emit("error", id=c.get("id"), message=f"unknown command {cmd!r}")
        except (DNSSDError, KeyError) as e:
            emit("error", id=c.get("id"), message=f"{cmd}: {type(e).__name__} {e}")
        return True


def if_name(index: int) -> str:
    try:
        return socket.if_indextoname(index)
    except OSError:
        return str(index)


def main() -> int:
    a = argparse.ArgumentParser()
    a.add_argument("--lib", required=True, help="libdns_sd.so of the mDNSResponder build")
    a.add_argument("--host", default=socket.gethostname() + ".local.",
                   help="mdnsd's host name, reported in published events")
    args = a.parse_args()
    sd = DNSSD(args.lib)
    peer = Peer(sd, args.host if args.host.endswith(".") else args.host + ".")
    # SIGTERM ends the loop like quit: its byte on a pipe wakes select()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGTERM, lambda *_: None)
    emit("ready", version=sd.version(), host=peer.host)
    stdin = sys.stdin.fileno()
    buf = b""
    running = True
    while running:
        nxt = peer.expire()
        timeout = None if nxt is None else max(0.0, nxt - time.monotonic())
        ready, _, _ = select.select([sd.fd, stdin, wake_r], [], [], timeout)
        if wake_r in ready:
            os.read(wake_r, 64)
            running = False
        if sd.fd in ready:
            code = sd.process()
            peer.end_doomed()
            if code != 0:
                emit("error", message=f"DNSServiceProcessResult {code}: the connection to mdnsd is lost")
                return 1
        if stdin in ready and running:
            data = os.read(stdin, 65536)
            if not data:
                running = False
            buf += data
            while running and b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                try:
                    c = json.loads(line)
                except ValueError as e:
                    emit("error", message=f"bad JSON: {e}")
                    continue
                running = peer.handle(c)
                peer.end_doomed()
    sd.close()
    emit("bye")
    return 0


if __name__ == "__main__":
    sys.exit(main())
