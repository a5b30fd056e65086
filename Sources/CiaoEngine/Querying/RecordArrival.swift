/// Where a record reported to a query came from, as ``MDNSEngine/arrival(of:on:)`` tells it.
public struct RecordArrival: Hashable, Sendable {
    /// One of our own records, or cached from one of this host's addresses (another responder
    /// here), as `avahi-browse -l` tells.
    public var isFromThisHost: Bool
    /// The address families it has come over: those of the interface for one of our own.
    public var families: [IPFamily]

    /// An arrival with the given origin and families.
    public init(isFromThisHost: Bool, families: [IPFamily]) {
        self.isFromThisHost = isFromThisHost
        self.families = families
    }
}
