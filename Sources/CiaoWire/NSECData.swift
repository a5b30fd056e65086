/// NSEC RDATA (RFC 4034 §4.1) with the type bit maps decoded to a sorted set of types.
public struct NSECData: Hashable, Sendable {
    public var nextDomainName: DomainName
    /// The types present, sorted ascending and without duplicates.
    public private(set) var types: [RecordType]

    /// Keeps `types` sorted and without duplicates. Lists that come in order, as a decoded type
    /// bitmap and most built ones do, are taken as they are, without sorting.
    public init(nextDomainName: DomainName, types: [RecordType]) {
        self.nextDomainName = nextDomainName
        if zip(types, types.dropFirst()).allSatisfy({ $0 < $1 }) {
            self.types = types
        } else {
            var unique: [RecordType] = []
            for type in types.sorted() where unique.last != type { unique.append(type) }
            self.types = unique
        }
    }

    /// The same for any sequence of types (a set, a lazy map).
    public init(nextDomainName: DomainName, types: some Sequence<RecordType>) {
        self.init(nextDomainName: nextDomainName, types: Array(types))
    }
}
