/// A change to a host's addresses, reported by a ``HostSession``.
public enum HostAddressEvent: Hashable, Sendable {
    /// The host has this address on the interface.
    case added(HostAddress)
    /// The address expired, was withdrawn with a goodbye, was replaced by another (a cache-flush
    /// announcement, RFC 6762 §10.2), or its interface went away.
    case removed(HostAddress)
}
