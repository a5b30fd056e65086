"""A python-zeroconf peer driven like the Ciao agent: JSON commands in, JSON events out.

Run inside a lab host with the python that has `zeroconf` installed:
    ip netns exec NS $ZEROCONF_PYTHON zc_peer.py [--host NAME] [--interface civ0]

Every event line carries "t" = time.monotonic() (CLOCK_MONOTONIC, one clock for all
namespaces) and "event". TXT is {key: lowercase hex of the value, or null for a flag}.

Commands and their events:
  {"cmd":"publish","id":..,"name":..,"type":"_x._tcp","port":N,"txt":{..},"rename":false}
        -> published {id, name (the name in use), host} | publishFailed {id, error}
           (rename true = allow_name_change: zeroconf appends "-2", "-3", ...)
  {"cmd":"updateTXT","id":..,"txt":{..}}   -> txtUpdated {id}
  {"cmd":"unpublish","id":..}              -> unpublished {id} (goodbyes sent)
  {"cmd":"browse","id":..,"type":..}       -> found / removed {id, name, type},
        resolved {id, name, host, port, addresses, txt} (again on every update)
  {"cmd":"resolve","id":..,"name":..,"type":..,"timeout":S}
        -> resolved {...} | resolveFailed {id, name}
  {"cmd":"quit"} or EOF                    -> unpublishes everything, bye
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import sys
import threading
import time

import ifaddr
from zeroconf import (IPVersion, NonUniqueNameException, ServiceInfo, ServiceStateChange,
                      __version__ as zc_version)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf


def emit(event: str, **kw) -> None:
    sys.stdout.write(json.dumps({"t": time.monotonic(), "event": event, **kw}, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def fq(type_: str) -> str:
    """"_x._tcp" or "_x._tcp.local." -> "_x._tcp.local." """
    return type_.rstrip(".").removesuffix(".local") + ".local."


def instance(full: str, type_: str) -> str:
    return full[: -len(fq(type_)) - 1] if full.endswith("." + fq(type_)) else full


def txt_props(txt: dict) -> dict:
    return {k.encode(): (None if v is None else bytes.fromhex(v)) for k, v in (txt or {}).items()}


def props_txt(props: dict | None) -> dict:
    out = {}
    for k, v in (props or {}).items():
        key = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        out[key] = None if v is None else (v if isinstance(v, bytes) else str(v).encode()).hex()
    return out


class Peer:
    def __init__(self, azc: AsyncZeroconf, host: str, v4: list[str], v6: list[str]):
        self.azc, self.host = azc, host
        self.addresses = [socket.inet_pton(socket.AF_INET, a) for a in v4] + \
                         [socket.inet_pton(socket.AF_INET6, a) for a in v6 if not a.lower().startswith("fe80")]
        self.infos: dict[str, ServiceInfo] = {}
        self.browsers: dict[str, AsyncServiceBrowser] = {}
        self.tasks: set[asyncio.Task] = set()

    def spawn(self, coro) -> None:
        t = asyncio.ensure_future(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)

    async def publish(self, c: dict) -> None:
        info = ServiceInfo(fq(c["type"]), f"{c['name']}.{fq(c['type'])}", port=c["port"],
                           properties=txt_props(c.get("txt")), server=self.host, addresses=self.addresses)
        try:
            await (await self.azc.async_register_service(info, allow_name_change=c.get("rename", False)))
        except NonUniqueNameException as e:
            emit("publishFailed", id=c["id"], error=f"NonUniqueNameException {e}")
            return
        self.infos[c["id"]] = info
        emit("published", id=c["id"], name=instance(info.name, c["type"]), host=self.host)

    async def update_txt(self, c: dict) -> None:
        info = self.infos[c["id"]]
        new = ServiceInfo(info.type, info.name, port=info.port, properties=txt_props(c.get("txt")),
                          server=info.server, addresses=info.addresses)
        await (await self.azc.async_update_service(new))
        self.infos[c["id"]] = new
        emit("txtUpdated", id=c["id"])

    async def unpublish(self, c: dict) -> None:
        await (await self.azc.async_unregister_service(self.infos.pop(c["id"])))
        emit("unpublished", id=c["id"])

    async def resolved(self, id_: str, type_: str, name: str, timeout: float, failure: str | None) -> None:
        info = AsyncServiceInfo(type_, name)
        if await info.async_request(self.azc.zeroconf, int(timeout * 1000)) and info.port is not None:
            emit("resolved", id=id_, name=instance(name, type_), type=type_.removesuffix(".local."),
                 host=info.server, port=info.port, addresses=info.parsed_scoped_addresses(),
                 txt=props_txt(info.properties))
        elif failure:
            emit(failure, id=id_, name=instance(name, type_))

    def browse(self, c: dict) -> None:
        def on_change(zeroconf, service_type, name, state_change):
            short = dict(id=c["id"], name=instance(name, service_type), type=c["type"])
            if state_change is ServiceStateChange.Removed:
                emit("removed", **short)
                return
            if state_change is ServiceStateChange.Added:
                emit("found", **short)
            self.spawn(self.resolved(c["id"], service_type, name, 3.0, "resolutionFailed"))

        self.browsers[c["id"]] = AsyncServiceBrowser(self.azc.zeroconf, [fq(c["type"])], handlers=[on_change])
        emit("browsing", id=c["id"])

    async def handle(self, c: dict) -> bool:
        cmd = c.get("cmd")
        if cmd == "publish":
            self.spawn(self.publish(c))
        elif cmd == "updateTXT":
            self.spawn(self.update_txt(c))
        elif cmd == "unpublish":
            self.spawn(self.unpublish(c))
        elif cmd == "browse":
            self.browse(c)
        elif cmd == "resolve":
            self.spawn(self.resolved(c["id"], fq(c["type"]), f"{c['name']}.{fq(c['type'])}",
                                     c.get("timeout", 5), "resolveFailed"))
        elif cmd == "quit":
            return False
        else:
            emit("error", id=c.get("id"), message=f"unknown command {cmd!r}")
        return True

    async def close(self) -> None:
        for b in self.browsers.values():
            await b.async_cancel()
        await self.azc.async_unregister_all_services()
        await self.azc.async_close()


async def main() -> None:
    a = argparse.ArgumentParser()
    a.add_argument("--host", default=socket.gethostname() + ".local.")
    a.add_argument("--interface", default="civ0")
    args = a.parse_args()
    v4, v6, idx = [], [], None
    for ad in ifaddr.get_adapters():
        if ad.nice_name == args.interface:
            idx = ad.index
            for ip in ad.ips:
                (v4.append(ip.ip) if ip.is_IPv4 else v6.append(ip.ip[0]))
    # the lab link only: its IPv4 address and (for IPv6) its interface index; IPv4 alone on a
    # host without IPv6
    if v6:
        azc = AsyncZeroconf(interfaces=v4 + [idx], ip_version=IPVersion.All)
    else:
        azc = AsyncZeroconf(interfaces=v4, ip_version=IPVersion.V4Only)
    peer = Peer(azc, args.host if args.host.endswith(".") else args.host + ".", v4, v6)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    emit("ready", version=zc_version, host=peer.host, addresses=v4 + v6)

    lines: asyncio.Queue = asyncio.Queue()

    def read_stdin():
        # a daemon thread, so a blocked readline() never holds up the exit
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)
        except RuntimeError:                 # the loop is already closed: we are exiting
            pass

    async def commands():
        while (line := await lines.get()) is not None:
            try:
                c = json.loads(line)
            except ValueError as e:
                emit("error", message=f"bad JSON: {e}")
                continue
            if not await peer.handle(c):
                break
        stop.set()

    threading.Thread(target=read_stdin, daemon=True).start()
    reader = asyncio.ensure_future(commands())
    await stop.wait()
    reader.cancel()
    await peer.close()
    emit("bye")


if __name__ == "__main__":
    asyncio.run(main())
