/// What a lookup on a ``DiscoveryBackend`` learns, one batch at a time.
enum LookupUpdate: Hashable, Sendable {
    /// Changes to the records asked for, in order.
    case changes([RecordEvent])
    /// The question for a type could not be asked: no unicast DNS server answered it, for the
    /// reason given. It is asked again in the next round; multicast DNS never reports this.
    case failed(DNSRecordType, CiaoError)
}
