"""An avahi-daemon client driven like the Ciao agent: JSON commands in, JSON events out.

Publishes through avahi's D-Bus API (so TXT values may hold any bytes), one entry group per
service. Needs Debian's python3-dbus (run with /usr/bin/python3) and DBUS_SYSTEM_BUS_ADDRESS
pointing at the host's private bus. No GLib main loop: entry-group states are polled.

Every event line carries "t" = time.monotonic() and "event"; TXT is {key: hex or null}.
  {"cmd":"publish","id":..,"name":..,"type":..,"port":N,"txt":{..},"count":1}
        -> published {id, name} once the group is established (count > 1: services
           "name 000".."name NNN", each its own group, one `published` {id, count} when all are),
           collision {id, name} | failure {id, name}
  {"cmd":"updateTXT","id":..,"txt":{..}}   -> txtUpdated {id}
  {"cmd":"unpublish","id":..}              -> unpublished {id} (groups freed: goodbyes)
  {"cmd":"quit"} or EOF                    -> bye
"""

import json
import select
import sys
import time

import dbus

AVAHI = "org.freedesktop.Avahi"
IF_UNSPEC = dbus.Int32(-1)
PROTO_UNSPEC = dbus.Int32(-1)
ESTABLISHED, COLLISION, FAILURE = 2, 3, 4


def emit(event, **kw):
    sys.stdout.write(json.dumps({"t": time.monotonic(), "event": event, **kw}, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def txt_array(txt):
    strings = [k.encode() + (b"" if v is None else b"=" + bytes.fromhex(v)) for k, v in (txt or {}).items()]
    return dbus.Array([dbus.Array([dbus.Byte(b) for b in s], signature="y") for s in strings], signature="ay")


class Publication:
    """One publish command: one or more entry groups, all with the same type, TXT and port base."""

    def __init__(self, bus, server, c):
        self.id, self.type, self.pending, self.failed = c["id"], c["type"], {}, 0
        count = c.get("count", 1)
        self.names = [c["name"]] if count == 1 else [f"{c['name']} {i:03d}" for i in range(count)]
        self.groups = []
        for i, name in enumerate(self.names):
            g = dbus.Interface(bus.get_object(AVAHI, server.EntryGroupNew()), f"{AVAHI}.EntryGroup")
            g.AddService(IF_UNSPEC, PROTO_UNSPEC, dbus.UInt32(0), name, self.type, "", "",
                         dbus.UInt16(c["port"] + i), txt_array(c.get("txt")))
            g.Commit()
            self.groups.append(g)
            self.pending[i] = g

    def poll(self):
        """Report groups that reached a final state; True once none is pending."""
        for i, g in list(self.pending.items()):
            st = int(g.GetState())
            if st == ESTABLISHED:
                del self.pending[i]
            elif st in (COLLISION, FAILURE):
                del self.pending[i]
                self.failed += 1
                emit("collision" if st == COLLISION else "failure", id=self.id, name=self.names[i])
        if not self.pending and not self.failed:
            if len(self.names) == 1:
                emit("published", id=self.id, name=self.names[0])
            else:
                emit("published", id=self.id, count=len(self.names))
        return not self.pending

    def update_txt(self, txt):
        for g, name in zip(self.groups, self.names):
            g.UpdateServiceTxt(IF_UNSPEC, PROTO_UNSPEC, dbus.UInt32(0), name, self.type, "", txt_array(txt))

    def free(self):
        for g in self.groups:
            g.Free()


def main():
    bus = dbus.SystemBus()
    server = dbus.Interface(bus.get_object(AVAHI, "/"), f"{AVAHI}.Server")
    emit("ready", version=str(server.GetVersionString()), host=str(server.GetHostNameFqdn()))
    pubs, waiting = {}, []
    while True:
        readable, _, _ = select.select([sys.stdin], [], [], 0.1 if waiting else 1.0)
        if readable:
            line = sys.stdin.readline()
            if not line:
                break
            c = json.loads(line)
            cmd = c.get("cmd")
            try:
                if cmd == "publish":
                    pubs[c["id"]] = Publication(bus, server, c)
                    waiting.append(pubs[c["id"]])
                elif cmd == "updateTXT":
                    pubs[c["id"]].update_txt(c.get("txt"))
                    emit("txtUpdated", id=c["id"])
                elif cmd == "unpublish":
                    pubs.pop(c["id"]).free()
                    emit("unpublished", id=c["id"])
                elif cmd == "quit":
                    break
                else:
                    emit("error", id=c.get("id"), message=f"unknown command {cmd!r}")
            except (dbus.DBusException, KeyError) as e:
                emit("error", id=c.get("id"), message=str(e))
        waiting = [p for p in waiting if not p.poll()]
    for p in pubs.values():
        p.free()
    emit("bye")


if __name__ == "__main__":
    main()
