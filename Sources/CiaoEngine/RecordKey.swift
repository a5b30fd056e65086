import CiaoWire

/// A record's identity: name, type, class and data (RFC 6762 §10.2 treats records with the same
/// name, type and class as one RRset).
///
/// The hashes are computed once, when the key is made: a key is hashed many times over in the
/// cache's indexes, and hashing a name folds the case of every byte. Keys fill the cache's indexes
/// and the engine's last-multicast tables, one per record, so they hold nothing twice: the type is
/// the data's, and the RRset is assembled when asked for.
struct RecordKey: Hashable {
    let name: DomainName
    /// The hash of the name alone (``RRSetKey/nameHash``).
    private let nameHash: Int
    private let hashCode: Int
    let data: RecordData
    let rrClass: RecordClass

    init(_ record: ResourceRecord) {
        self.init(name: record.name, rrClass: record.rrClass, data: record.data, nameHash: record.name.hashValue)
    }

    private init(name: DomainName, rrClass: RecordClass, data: RecordData, nameHash: Int) {
        self.name = name
        self.nameHash = nameHash
        self.data = data
        self.rrClass = rrClass
        var hasher = Hasher()
        hasher.combine(RRSetKey(name: name, type: data.type, rrClass: rrClass, nameHash: nameHash))
        hasher.combine(data)
        hashCode = hasher.finalize()
    }

    private init(sharing name: DomainName, _ data: RecordData, of key: RecordKey) {
        self.name = name
        self.data = data
        nameHash = key.nameHash
        hashCode = key.hashCode
        rrClass = key.rrClass
    }

    var rrset: RRSetKey { RRSetKey(name: name, type: data.type, rrClass: rrClass, nameHash: nameHash) }

    /// The same key holding byte-identical copies of its names that are already stored elsewhere,
    /// so that the copies' storage is shared rather than kept once per record.
    func sharing(_ name: DomainName, _ data: RecordData) -> RecordKey {
        RecordKey(sharing: name, data, of: self)
    }

    static func == (lhs: RecordKey, rhs: RecordKey) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.data == rhs.data && lhs.rrClass == rhs.rrClass
            && lhs.name.sameName(as: rhs.name)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }
}

/// Name, type and class: an RRset. The name's hash is computed once, like ``RecordKey``'s.
struct RRSetKey: Hashable {
    let name: DomainName
    /// The hash of the name alone, for the by-name index.
    let nameHash: Int
    let type: RecordType
    let rrClass: RecordClass

    init(name: DomainName, type: RecordType, rrClass: RecordClass) {
        self.init(name: name, type: type, rrClass: rrClass, nameHash: name.hashValue)
    }

    fileprivate init(name: DomainName, type: RecordType, rrClass: RecordClass, nameHash: Int) {
        self.name = name
        self.nameHash = nameHash
        self.type = type
        self.rrClass = rrClass
    }

    var nameKey: NameKey { NameKey(name: name, hashCode: nameHash) }

    static func == (lhs: RRSetKey, rhs: RRSetKey) -> Bool {
        lhs.nameHash == rhs.nameHash && lhs.type == rhs.type && lhs.rrClass == rhs.rrClass
            && lhs.name.sameName(as: rhs.name)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(nameHash)
        hasher.combine(type)
        hasher.combine(rrClass)
    }
}

extension DomainName {
    /// `==`, with a fast path for copies of one name (byte-identical storage compares by identity
    /// first): the cache's keys are mostly copies of each other.
    fileprivate func sameName(as other: DomainName) -> Bool {
        isIdentical(to: other) || self == other
    }
}

/// A name with its hash computed once.
struct NameKey: Hashable {
    let name: DomainName
    fileprivate let hashCode: Int

    init(_ name: DomainName) {
        self.name = name
        hashCode = name.hashValue
    }

    fileprivate init(name: DomainName, hashCode: Int) {
        self.name = name
        self.hashCode = hashCode
    }

    static func == (lhs: NameKey, rhs: NameKey) -> Bool {
        lhs.hashCode == rhs.hashCode && lhs.name.sameName(as: rhs.name)
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hashCode) }
}
