import CiaoEngine
import CiaoWire

/// Service registrations and the records a publisher of a service sends.
public enum Services {
    /// A registration of instance `name` of `type` (``Names/serviceType`` unless given) on `port`.
    public static func registration(
        _ name: String, type: DomainName = Names.serviceType, subtypes: [String] = [], port: UInt16 = 8080,
        txt: [String] = ["v=1"], allowsRenaming: Bool = true, hostName: DomainName? = nil
    ) -> ServiceRegistration {
        ServiceRegistration(
            instanceName: name, serviceType: type, subtypes: subtypes, port: port, txt: Self.txt(txt),
            allowsRenaming: allowsRenaming, hostName: hostName)
    }

    /// TXT data holding `strings`, one string each; traps when one is too long.
    public static func txt(_ strings: [String]) -> TXTData {
        try! TXTData(strings: strings.map { Array($0.utf8) })
    }

    /// The PTR record from `instance`'s service type to it, as its publisher announces it.
    public static func ptr(to instance: DomainName, ttl: UInt32 = 4500) -> ResourceRecord {
        ResourceRecord(name: instance.parent, ttl: ttl, data: .ptr(instance))
    }

    /// The records a publisher of one service announces: PTR, then SRV, TXT and the host's A record,
    /// all but the PTR unique (cache-flush).
    public static func records(
        instance: DomainName, host: DomainName, address: IPv4Address, port: UInt16 = 80,
        txt: String = "v=1", ttl: UInt32 = 120, ptrTTL: UInt32 = 4500
    ) -> [ResourceRecord] {
        [
            ptr(to: instance, ttl: ptrTTL),
            ResourceRecord(name: instance, cacheFlush: true, ttl: ttl, data: .srv(SRVData(port: port, target: host))),
            ResourceRecord(name: instance, cacheFlush: true, ttl: ptrTTL, data: .txt(Self.txt([txt]))),
            ResourceRecord(name: host, cacheFlush: true, ttl: ttl, data: .a(address)),
        ]
    }

    /// An SRV record of `instance` pointing elsewhere, as another responder claiming the name sends.
    public static func conflictingSRV(for instance: DomainName) -> ResourceRecord {
        ResourceRecord(
            name: instance, cacheFlush: true, ttl: 120,
            data: .srv(SRVData(port: 4242, target: Names.name("impostor.local."))))
    }
}
