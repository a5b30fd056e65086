import CiaoWire

/// Another host's name and addresses, published for it (a proxy, as `dns-sd -P` and
/// `avahi-publish -a` do) for a device that does not answer for itself: `<label>.local.` with an
/// A or AAAA record per address and an NSEC, probed and defended like this host's own name, never
/// renamed (RFC 6762 §8, §9); and a reverse-mapping PTR per address, yielded to another responder
/// that maps it elsewhere, to an earlier registration that maps it, and to this host's own
/// mapping of an address of this host while this host's name is published (§4).
public struct OtherHostRegistration: Hashable, Sendable {
    /// The host label, without `.local.`.
    public var label: String
    public var addresses: [IPAddress]
    /// The interfaces to publish on; `nil` for all.
    public var interfaces: Set<InterfaceID>?

    public init(label: String, addresses: [IPAddress], interfaces: Set<InterfaceID>? = nil) {
        self.label = label
        self.addresses = addresses
        self.interfaces = interfaces
    }
}
