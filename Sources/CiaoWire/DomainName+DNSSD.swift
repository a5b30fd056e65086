extension DomainName {
    /// `<subtype>._sub.<self>` for a service type such as `_http._tcp.local.` (RFC 6763 §7.1).
    /// - Throws: ``NameError`` when `subtype` is no valid label or the name would be too long.
    public func subtypeName(_ subtype: String) throws(NameError) -> DomainName {
        try DomainName(labels: [subtype, "_sub"]).appending(self)
    }

    /// `_services._dns-sd._udp.<domain>`, under which `domain` lists its service types (RFC 6763 §9).
    /// - Throws: ``NameError`` when the name would be too long.
    public static func serviceTypeEnumerationName(in domain: DomainName) throws(NameError) -> DomainName {
        try DomainName(labels: ["_services", "_dns-sd", "_udp"]).appending(domain)
    }
}
