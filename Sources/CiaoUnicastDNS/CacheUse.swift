/// Which cached answer a question to ``UnicastDNSClient`` takes.
public enum CacheUse: Hashable, Sendable {
    /// Any unexpired answer.
    case any
    /// An answer that has lived less than 75 % of its TTL: a refresh asks again only what is
    /// due, so an RRset of a long TTL is not asked for in every round of a shorter one.
    case unlessDue
    /// None: the servers are asked.
    case none
}
