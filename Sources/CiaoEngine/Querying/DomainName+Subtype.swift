import CiaoWire

extension DomainName {
    /// `<subtype>._sub.<self>` for a service type such as `_http._tcp.local.` (RFC 6763 §7.1);
    /// nil when `subtype` is no valid label.
    public func subtypeName(_ subtype: String) -> DomainName? {
        try? DomainName(labels: [subtype, "_sub"]).appending(self)
    }
}
