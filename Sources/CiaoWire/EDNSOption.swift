/// One EDNS(0) option (RFC 6891 §6.1.2), such as the Owner option mDNS sleep proxies use.
public struct EDNSOption: Hashable, Sendable {
    public var code: UInt16
    public var data: [UInt8]

    public init(code: UInt16, data: [UInt8]) {
        self.code = code
        self.data = data
    }
}
