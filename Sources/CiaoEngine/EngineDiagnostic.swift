import CiaoWire

/// Something the engine met or decided that a log should show, collected while
/// ``MDNSEngine/reportsDiagnostics`` is on and taken with ``MDNSEngine/takeDiagnostics()``.
/// What it sends is told by the datagrams themselves (``OutgoingDatagram/purpose``).
public enum EngineDiagnostic: Hashable, Sendable {
    /// A message handled: a query or a response from `source`.
    case received(Message, from: SocketAddress, on: InterfaceID)
    /// A datagram ignored, and why.
    case dropped(DropReason, from: SocketAddress, on: InterfaceID)
    /// A record of a name we own or probe for, with other data (RFC 6762 §9): while probing the
    /// name is given up at once, afterwards it is probed again.
    case conflict(name: DomainName, from: SocketAddress, on: InterfaceID, whileProbing: Bool)
    /// Another host probed for our name at the same time and won the tie-break (§8.2): we probe
    /// again in a second.
    case lostProbeTieBreak(name: DomainName, from: SocketAddress, on: InterfaceID)
    /// A service's name won by probing (``EngineEvent/registered(_:name:)``).
    case registered(name: DomainName)
    /// A service's name lost to a conflict, probing under another (``EngineEvent/renamed(_:from:to:)``).
    case renamed(from: DomainName, to: DomainName)
    /// A service's name taken, renaming off (``EngineEvent/nameConflict(_:name:)``).
    case nameConflict(name: DomainName)
    /// The host name settled under another (``EngineEvent/hostRenamed(from:to:)``).
    case hostRenamed(from: DomainName, to: DomainName)
    /// Another responder on this host heard from `source`, which shares the mDNS port with us: from
    /// now on queries and probes over its family ask for multicast replies only, as unicast ones
    /// may be handed to it (RFC 6762 §15.1, ``MDNSEngine/unicastReplyFamilies``).
    case responderOnThisHost(SocketAddress, on: InterfaceID)
    /// Our own multicast sent on the second interface came in on the first: the two are on one
    /// link, and the records published on both stay when one of them goes (RFC 6762 §14).
    case sharedLink(InterfaceID, with: InterfaceID)
    /// A message not sent: even in a packet of ``Message/maximumSize`` bytes, one of its
    /// entries does not fit. Our own records are size-checked when registered, so this tells of
    /// a record from elsewhere (a known answer from the cache) too large to repeat.
    case unsendable(OutgoingDatagram.Purpose, EncodingError, on: InterfaceID)

    /// Whether it tells of a name won, lost or renamed; these come as ``MDNSEngine/takeEvents()``
    /// reports the events.
    public var isAboutPublication: Bool {
        switch self {
        case .registered, .renamed, .nameConflict, .hostRenamed: true
        case .received, .dropped, .conflict, .lostProbeTieBreak, .responderOnThisHost, .sharedLink, .unsendable:
            false
        }
    }
}

extension EngineEvent {
    /// What a log says of the event, if it is about a name this engine publishes.
    var publicationDiagnostic: EngineDiagnostic? {
        switch self {
        case .registered(_, let name): .registered(name: name)
        case .renamed(_, let old, let new): .renamed(from: old, to: new)
        case .nameConflict(_, let name): .nameConflict(name: name)
        case .hostRenamed(let old, let new): .hostRenamed(from: old, to: new)
        case .added, .updated, .removed, .noSuchRecord, .heardOver: nil
        }
    }
}

/// Why the engine ignored a received datagram.
public enum DropReason: Hashable, Sendable, CustomStringConvertible {
    /// The engine sent it, and the kernel looped it back so that other responders on this host
    /// hear it: from one of our addresses and port 5353, with the bytes of a datagram sent in the last
    /// two seconds (``MDNSEngine/noteSent(at:)``).
    case ownMulticast
    /// It came on an interface the engine does not use.
    case unknownInterface
    /// It is not a DNS message: the decoder's reason and the offset where it stopped.
    case undecodable(DecodingError)
    /// A unicast datagram from a source off the interface's links (§11).
    case offLink
    /// A response with a non-zero RCODE (§18.11).
    case errorResponse(rcode: UInt8)
    /// A response from a port other than 5353 (§6).
    case responseFromOtherPort(UInt16)

    public var description: String {
        switch self {
        case .ownMulticast: "our own multicast, looped back by the kernel"
        case .unknownInterface: "came on an interface not in use"
        case .undecodable(let error): "undecodable: \(error)"
        case .offLink: "unicast from a source not on the link (RFC 6762 §11)"
        case .errorResponse(let rcode): "response with RCODE \(rcode) (RFC 6762 §18.11)"
        case .responseFromOtherPort(let port): "response from port \(port), not 5353 (RFC 6762 §6)"
        }
    }
}
