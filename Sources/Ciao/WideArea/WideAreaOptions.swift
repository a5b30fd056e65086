/// What publishing in a unicast DNS domain needs beside the service itself (RFC 6763 §4–§6 by
/// DNS UPDATE, RFC 2136, signed with TSIG, RFC 8945).
public struct WideAreaOptions: Hashable, Sendable {
    /// The key that signs the updates; the server's update-policy must let it write the names.
    public var key: RegistrationKey
    /// The server to send updates to, as `198.18.0.1`, `fd00::53` or with a port `198.18.0.1#5353`;
    /// nil: the zone's primary, as its SOA record names it.
    public var server: String?
    /// The label of the SRV target, registered in the zone (`<label>.<domain>`) with this host's
    /// global addresses; nil: this machine's host name up to its first dot (`Ciao` when it has
    /// none or it is `localhost`).
    public var hostName: String?

    /// Options for publishing with `key`.
    public init(key: RegistrationKey, server: String? = nil, hostName: String? = nil) {
        self.key = key
        self.server = server
        self.hostName = hostName
    }
}
