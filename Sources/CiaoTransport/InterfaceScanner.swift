#if canImport(Glibc)
import Glibc
#endif
import CiaoNetwork

/// The interfaces mDNS can run on right now, read with getifaddrs(3).
///
/// An interface qualifies when it is up (IFF_UP), has carrier (IFF_RUNNING; a link that is down
/// counts as gone), can multicast (IFF_MULTICAST) and is not loopback, and has at least one address
/// of a selected family. Its IPv4 and IPv6 addresses, link-local included, come with prefix lengths
/// from their netmasks, which the engine uses for the on-link check (RFC 6762 §11); IPv6 ones
/// are marked deprecated as /proc/net/if_inet6 flags them, which getifaddrs does not tell.
public enum InterfaceScanner {
    /// The name of the interface with `index` (if_indextoname(3)), nil when there is none.
    public static func name(ofIndex index: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return SystemCall.string(fromNulTerminated: buffer)
    }

    /// The qualifying interfaces, sorted by index.
    public static func current(filter: InterfaceFilter = .all) throws(TransportError) -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { throw .lastError("list the network interfaces (getifaddrs)") }
        defer { freeifaddrs(list) }

        let deprecated = DeprecatedAddresses.current()
        var entries: [Entry] = []
        var indices: [String: UInt32] = [:]
        var next = list
        while let entry = next {
            next = entry.pointee.ifa_next
            guard let cName = entry.pointee.ifa_name else { continue }
            // IPv4 addresses with a label report it as the name ("eth0:1"); `:` is not allowed in
            // interface names, so what precedes it names the interface.
            let name = String(String(cString: cName).prefix { $0 != ":" })
            let index: UInt32
            if let known = indices[name] {
                index = known
            } else {
                index = if_nametoindex(name)
                indices[name] = index
            }
            guard index != 0 else { continue }  // gone since the list was read
            var address = address(entry.pointee.ifa_addr, netmask: entry.pointee.ifa_netmask)
            if let ip = address?.address, deprecated.contains(ip, onInterface: index) {
                address?.isDeprecated = true
            }
            entries.append(Entry(name: name, index: index, flags: entry.pointee.ifa_flags, address: address))
        }
        return interfaces(from: entries, filter: filter)
    }

    /// The names of every interface the system has, usable or not (if_nameindex(3)), sorted.
    public static func systemInterfaceNames() -> [String] {
        guard let list = if_nameindex() else { return [] }
        defer { if_freenameindex(list) }
        var names: [String] = []
        var entry = list
        while entry.pointee.if_index != 0, let name = entry.pointee.if_name {
            names.append(String(cString: name))
            entry += 1
        }
        return names.sorted()
    }

    /// One getifaddrs entry, reduced to what the filter needs.
    struct Entry: Hashable {
        var name: String
        var index: UInt32
        /// The interface's IFF_* flags.
        var flags: UInt32
        /// An IPv4 or IPv6 address; nil for other families (AF_PACKET) or none.
        var address: InterfaceAddress?
    }

    /// The flags an interface needs, and the one it must not have.
    static let requiredFlags = UInt32(IFF_UP | IFF_RUNNING | IFF_MULTICAST)
    static let excludedFlags = UInt32(IFF_LOOPBACK)

    /// Groups entries by interface and applies the flag rules and `filter`; pure.
    static func interfaces(from entries: [Entry], filter: InterfaceFilter) -> [NetworkInterface] {
        var byIndex: [UInt32: NetworkInterface] = [:]
        for entry in entries {
            guard entry.flags & requiredFlags == requiredFlags, entry.flags & excludedFlags == 0,
                filter.includes(name: entry.name),
                let address = entry.address, filter.includes(address.address.family)
            else { continue }
            var interface =
                byIndex[entry.index]
                ?? NetworkInterface(id: InterfaceID(entry.index), name: entry.name, addresses: [])
            if !interface.addresses.contains(address) { interface.addresses.append(address) }
            byIndex[entry.index] = interface
        }
        return byIndex.values.sorted { $0.id < $1.id }
    }

    /// The address and prefix length of one entry, nil unless it is IPv4 or IPv6.
    static func address(_ address: UnsafeMutablePointer<sockaddr>?, netmask: UnsafeMutablePointer<sockaddr>?)
        -> InterfaceAddress?
    {
        guard let address, let ip = IPAddress(address) else { return nil }
        let maximum = ip.family == .v4 ? 32 : 128
        guard let netmask, let mask = IPAddress(netmask), mask.family == ip.family else {
            return InterfaceAddress(ip, prefixLength: maximum)
        }
        return InterfaceAddress(ip, prefixLength: prefixLength(of: mask))
    }

    /// The number of one bits in a netmask such as 255.255.255.0 (24) or ffff:ffff:ffff:ffff:: (64).
    static func prefixLength(of mask: IPAddress) -> Int {
        switch mask {
        case .v4(let v4):
            [v4.bytes.0, v4.bytes.1, v4.bytes.2, v4.bytes.3].reduce(0) { $0 + $1.nonzeroBitCount }
        case .v6(let v6):
            v6.high.nonzeroBitCount + v6.low.nonzeroBitCount
        }
    }
}
