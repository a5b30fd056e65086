// DriverFuzzer.swift — libFuzzer target: what peers on the link send, as hostile as they like, to
// the mDNS engine and the DNS-SD layer above it, as the runtime runs them.
//
// Built by Scripts/fuzz.sh: CiaoWire, CiaoNetwork, CiaoEngine, CiaoUnicastDNS, the C shim and
// CiaoTransport first, each a module of its own, then this file compiled together with
// Sources/Ciao (so there is no `import Ciao`): it drives the internal `DiscoveryDriver`, which the
// runtime runs over its sockets, with the inputs the runtime gives it, and nothing else.
//
// The driver runs on two interfaces (if2: 198.18.0.1/24, fd00:198:18::1/64, fe80::1; if3:
// 198.19.0.1/24). Before the input it publishes "Fuzz" (_http._tcp, port 8080, subtype _printer),
// browses _http._tcp resolving what it finds (5 s timeout) and _ipp._tcp without, enumerates the
// service types, resolves "Peer._http._tcp.local." and looks up A and AAAA of peer.local; then 3 s
// pass, so that the name is established and the first queries have gone out. Every input starts
// from a copy of that driver.
//
// Input: a sequence of steps, each an operation byte and what that operation reads:
//   op & 3 == 0 or 1   a datagram: a flags byte, a 16-bit big-endian length, then that many bytes
//                      (or what is left). Flags bits 0–2: the source, one of `Fixture.sources`
//                      (peers on and off the link, the driver's own addresses); bit 3: from an
//                      ephemeral port, not 5353; bit 4: unicast to us, not multicast; bits 5–7:
//                      received on if2 (0–5), if3 (6) or an interface the driver does not know (7).
//   op & 3 == 2        time passes: a 16-bit big-endian count of milliseconds, times 100 when
//                      bit 2 of op is set (up to 109 minutes).
//   op & 3 == 3        something happens on the host, by op >> 2 & 7: if2 goes away; if2 comes
//                      (back) with its addresses (bit 5: with another IPv4 address); the datagrams
//                      last sent come back as the kernel loops them back; the TXT record changes;
//                      the _http._tcp browse is cancelled and started again; the publication is
//                      withdrawn and published again; "Peer" is resolved again; if3 goes or comes.
// Scripts/fuzz.sh starts from Fuzz/Seeds' packets (the driver-*.bin ones ask for and answer what
// this driver publishes and wants), each framed as a datagram followed by a second passing or by
// the driver's own datagrams looped back, a few from off the link or as legacy queries, and two
// peers that fill the cache.
//
// Properties; anything else (a trap, an AddressSanitizer report, a hang past libFuzzer's -timeout,
// memory past -rss_limit_mb) is a finding too, and each violation is a `fatalError` so libFuzzer
// saves the input:
//   1. Every datagram the driver sends decodes, fits in 9000 bytes (RFC 6762 §17), goes out on an
//      interface the driver runs on (or has just left, with goodbyes), and, sent by unicast, goes
//      to an address on that link (§11: no reply leaves the link).
//   2. After time passes to `t`, the next deadline lies after `t`: no input makes the runtime's
//      loop spin. After the input, two hours pass deadline by deadline in at most 20,000 steps.
//   3. No interface's cache holds more records than its capacity (bounded memory).
//   4. Every message received and sent, and every reason a datagram was dropped, reads as
//      `ciao -v` prints it (`MessageSummary`, `DropReason.description`).

import CiaoEngine
import CiaoWire

@_cdecl("LLVMFuzzerTestOneInput")
public func driverFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    var run = FuzzRun.settled
    while let op = input.byte() {
        run.step(op, &input)
    }
    run.passTime(.seconds(7200))
    return 0
}

// MARK: - Input

/// The fuzzer's bytes, read front to back; reads past the end give nil or what is left.
private struct FuzzInput {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16() -> UInt16 {
        UInt16(byte() ?? 0) << 8 | UInt16(byte() ?? 0)
    }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(offset + count, bytes.count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}

private enum Fixture {
    static let primary = InterfaceID(2)
    static let secondary = InterfaceID(3)
    static let unknown = InterfaceID(9)
    static let capacity = 64

    static func primaryInterface(otherAddress: Bool) -> NetworkInterface {
        NetworkInterface(
            id: primary, name: "fuzz0",
            addresses: [
                InterfaceAddress(.v4(IPv4Address(198, 18, 0, otherAddress ? 2 : 1)), prefixLength: 24),
                InterfaceAddress(.v6(IPv6Address("fd00:198:18::1")!), prefixLength: 64),
                InterfaceAddress(.v6(IPv6Address("fe80::1")!), prefixLength: 64),
            ])
    }

    static let secondaryInterface = NetworkInterface(
        id: secondary, name: "fuzz1", addresses: [InterfaceAddress(.v4(IPv4Address(198, 19, 0, 1)), prefixLength: 24)])

    /// Peers on the link, off it, and the driver's own addresses.
    static let sources: [IPAddress] = [
        .v4(IPv4Address(198, 18, 0, 7)), .v6(IPv6Address("fe80::7")!), .v6(IPv6Address("fd00:198:18::7")!),
        .v4(IPv4Address(203, 0, 113, 5)), .v6(IPv6Address("2001:db8::5")!), .v4(IPv4Address(198, 18, 0, 1)),
        .v6(IPv6Address("fe80::1")!), .v4(IPv4Address(198, 19, 0, 8)),
    ]

    static let http = try! ServiceType("_http._tcp")
    static let ipp = try! ServiceType("_ipp._tcp")
    static let publication = Publication(
        name: "Fuzz", type: http, port: 8080, txtRecord: try! TXTRecord(orderedStrings: ["v": "1"]),
        subtypes: ["_printer"], allowsRenaming: true, wideArea: nil)
    static let peer = Service(name: "Peer", type: http)
    static let lookup = try! RecordLookup(name: "peer.local", types: [.a, .aaaa], interfaceIndex: 0)
}

/// The tokens of what the driver was asked to do.
private enum Token {
    static let publication = BackendToken(rawValue: 1)
    static let browse = BackendToken(rawValue: 2)
    static let browseIPP = BackendToken(rawValue: 3)
    static let types = BackendToken(rawValue: 4)
    static let resolution = BackendToken(rawValue: 5)
    static let lookup = BackendToken(rawValue: 6)
}

// MARK: - The run

private struct FuzzRun {
    private var driver: DiscoveryDriver
    private var now = Instant(nanoseconds: 1_000_000_000)
    private var lastSent: [OutgoingDatagram] = []

    /// The driver once its name is established and its first queries have gone out: where every
    /// input starts. libFuzzer runs inputs one at a time, on one thread.
    nonisolated(unsafe) static let settled: FuzzRun = {
        var run = FuzzRun()
        run.passTime(.seconds(3))
        return run
    }()

    private init() {
        driver = DiscoveryDriver(
            engine: MDNSEngine(configuration: .init(hostLabel: "fuzz", cacheCapacity: Fixture.capacity), seed: 0xC1A0))
        driver.reportsDiagnostics = true
        handle(.setInterface(Fixture.primaryInterface(otherAddress: false)))
        handle(.setInterface(Fixture.secondaryInterface))
        handle(.command(.publish(Fixture.publication, Token.publication)))
        handle(.command(.browse(Fixture.http, subtype: nil, resolutionTimeout: .seconds(5), Token.browse)))
        handle(.command(.browse(Fixture.ipp, subtype: nil, resolutionTimeout: nil, Token.browseIPP)))
        handle(.command(.browseTypes(Token.types)))
        handle(.command(.resolve(Fixture.peer, Token.resolution)))
        handle(.command(.lookUp(Fixture.lookup, Token.lookup)))
    }

    mutating func step(_ op: UInt8, _ input: inout FuzzInput) {
        switch op & 3 {
        case 0, 1: receive(flags: input.byte() ?? 0, bytes: input.take(Int(input.uint16())))
        case 2: jump(milliseconds: Int64(input.uint16()) * (op & 4 == 0 ? 1 : 100))
        default: happen(op >> 2 & 7, variant: op & 0x20 != 0)
        }
    }

    /// `duration` passes, deadline by deadline (property 2).
    mutating func passTime(_ duration: Duration) {
        let end = now + duration
        for _ in 0..<20_000 {
            guard let deadline = driver.nextDeadline, deadline <= end else {
                now = end
                return
            }
            now = max(now, deadline)
            advance()
        }
        fatalError("more than 20,000 deadlines within \(duration)")
    }

    private mutating func receive(flags: UInt8, bytes: [UInt8]) {
        let source = SocketAddress(Fixture.sources[Int(flags & 7)], port: flags & 8 == 0 ? 5353 : 49152)
        let interface =
            switch flags >> 5 {
            case 6: Fixture.secondary
            case 7: Fixture.unknown
            default: Fixture.primary
            }
        let datagram = ReceivedDatagram(
            bytes: bytes, source: source, interface: interface, isMulticast: flags & 16 == 0)
        handle(.receive(datagram))
    }

    /// Time moves on by `milliseconds` at once, however many deadlines that passes.
    private mutating func jump(milliseconds: Int64) {
        now = now + .milliseconds(milliseconds)
        advance()
    }

    private mutating func advance() {
        handle(.advance)
        if let next = driver.nextDeadline, next <= now {
            fatalError("after advancing to \(now) the next deadline is \(next): the loop would spin")
        }
    }

    private mutating func happen(_ event: UInt8, variant: Bool) {
        switch event {
        case 0: handle(.removeInterface(Fixture.primary))
        case 1: handle(.setInterface(Fixture.primaryInterface(otherAddress: variant)))
        case 2: loopBack()
        case 3:
            handle(
                .command(.updateTXT(try! TXTRecord(orderedStrings: ["v": variant ? "2" : "3"]), of: Token.publication)))
        case 4:
            handle(.command(.cancel(Token.browse)))
            handle(.command(.browse(Fixture.http, subtype: nil, resolutionTimeout: .seconds(5), Token.browse)))
        case 5:
            handle(.command(.cancel(Token.publication)))
            handle(.command(.publish(Fixture.publication, Token.publication)))
        case 6:
            handle(.command(.cancel(Token.resolution)))
            handle(.command(.resolve(Fixture.peer, Token.resolution)))
        default:
            handle(variant ? .removeInterface(Fixture.secondary) : .setInterface(Fixture.secondaryInterface))
        }
    }

    /// The multicast datagrams last sent, received back from our own address (the link-local one
    /// over IPv6) as the kernel loops them back.
    private mutating func loopBack() {
        for sent in lastSent {
            guard case .multicast(let family) = sent.destination,
                let interface = driver.interface(sent.interface),
                let own = interface.addresses.first(where: {
                    $0.address.family == family && ($0.address.isLinkLocal || family == .v4)
                })
            else { continue }
            let datagram = ReceivedDatagram(
                bytes: sent.bytes, source: SocketAddress(own.address, port: 5353), interface: sent.interface,
                isMulticast: true)
            handle(.receive(datagram))
        }
    }

    /// Hands `input` to the driver, then takes and checks everything it has to say.
    private mutating func handle(_ input: DiscoveryDriver.Input) {
        let interfacesBefore = driver.interfaces
        driver.handle(input, at: now)
        let sent = driver.takeDatagrams()
        for datagram in sent { check(datagram, interfacesBefore: interfacesBefore) }
        if !sent.isEmpty {
            lastSent = sent
            driver.noteSent(at: now)
        }
        _ = driver.takeUpdates()
        for diagnostic in driver.takeDiagnostics() {
            switch diagnostic {
            case .received(let message, _, _): _ = MessageSummary.describe(message)
            case .dropped(let reason, _, _): _ = reason.description
            default: break
            }
        }
        for interface in driver.interfaces {
            let cached = driver.engine.cachedRecords(on: interface.id).count
            if cached > Fixture.capacity {
                fatalError("\(interface.name) caches \(cached) records, past its capacity of \(Fixture.capacity)")
            }
        }
    }

    /// Property 1; an interface the input took away still sends its goodbyes.
    private func check(_ datagram: OutgoingDatagram, interfacesBefore: [NetworkInterface]) {
        guard datagram.bytes.count <= 9000 else { fatalError("a datagram of \(datagram.bytes.count) bytes") }
        do {
            _ = MessageSummary.describe(try Message(decoding: datagram.bytes))
        } catch {
            fatalError("a datagram sent does not decode: \(error)")
        }
        guard
            let interface = driver.interface(datagram.interface)
                ?? interfacesBefore.first(where: { $0.id == datagram.interface })
        else {
            fatalError("a datagram sent on \(datagram.interface), where the driver does not run")
        }
        if case .unicast(let destination) = datagram.destination, !interface.isOnLink(destination.address) {
            fatalError("a unicast datagram to \(destination), off \(interface.name)'s link")
        }
    }
}
