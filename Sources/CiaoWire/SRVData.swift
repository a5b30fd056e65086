/// SRV RDATA (RFC 2782): priority, weight, port and target host.
public struct SRVData: Hashable, Sendable {
    public var priority: UInt16
    public var weight: UInt16
    public var port: UInt16
    public var target: DomainName

    public init(priority: UInt16 = 0, weight: UInt16 = 0, port: UInt16, target: DomainName) {
        self.priority = priority
        self.weight = weight
        self.port = port
        self.target = target
    }
}
