import CiaoWire

extension ServiceType {
    /// `_<name>._<transport>.<domain>` (RFC 6763 §7): the name a browse of this type asks for.
    /// - Throws: ``NameError`` when the name would be longer than 255 bytes.
    func domainName(in domain: DomainName) throws(NameError) -> DomainName {
        try DomainName(labels: ["_" + name, "_" + transport.rawValue]).appending(domain)
    }
}
