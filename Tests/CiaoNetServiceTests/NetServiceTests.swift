import Ciao
import Foundation
import Synchronization
import Testing

@testable import CiaoNetService

/// What NetService does without the network: TXT conversions, addresses, error dictionaries, and
/// the argument checks that fail before any network work.
@Suite struct NetServiceTests {
    @Test func txtDictionaryRoundTrips() {
        let dictionary = ["path": Data("/x".utf8), "empty": Data(), "bin": Data([0, 0xFF])]
        let data = NetService.data(fromTXTRecord: dictionary)
        #expect(NetService.dictionary(fromTXTRecord: data) == dictionary)
    }

    /// Keys keep the spelling they were written with, both ways, as on Apple platforms: a peer's
    /// `GameName=Chess` is `GameName`, and a published `GameName` goes out as such.
    @Test func txtKeysKeepTheirSpelling() {
        let peer = Data([14] + Array("GameName=Chess".utf8) + [10] + Array("Company=Zy".utf8))
        #expect(
            NetService.dictionary(fromTXTRecord: peer) == ["GameName": Data("Chess".utf8), "Company": Data("Zy".utf8)])
        let data = NetService.data(fromTXTRecord: ["GameName": Data("Go".utf8), "txtvers": Data("1".utf8)])
        #expect(data == Data([9] + Array("txtvers=1".utf8) + [11] + Array("GameName=Go".utf8)))
    }

    @Test func flagsReadAsEmptyDataAndBadDataAsNothing() {
        // "flag" (no "="), then "k=v".
        let data = Data([4] + Array("flag".utf8) + [3] + Array("k=v".utf8))
        #expect(NetService.dictionary(fromTXTRecord: data) == ["flag": Data(), "k": Data("v".utf8)])
        #expect(NetService.dictionary(fromTXTRecord: Data([9, 1, 2])).isEmpty)
    }

    @Test func invalidTXTDictionaryGivesEmptyData() {
        #expect(NetService.data(fromTXTRecord: ["bad=key": Data()]).isEmpty)
        #expect(NetService.data(fromTXTRecord: ["k": Data(count: 300)]).isEmpty)
    }

    @Test func setTXTRecordRejectsMalformedData() {
        let service = NetService(domain: "local.", type: "_http._tcp.", name: "Web", port: 80)
        #expect(!service.setTXTRecord(Data([9, 1, 2])))
        #expect(service.txtRecordData() == nil)
        #expect(service.setTXTRecord(Data([3] + Array("a=b".utf8))))
        #expect(service.txtRecordData() == Data([3] + Array("a=b".utf8)))
    }

    @Test func setTXTRecordRejectsARecordNoPacketHolds() {
        let service = NetService(domain: "local.", type: "_http._tcp.", name: "Web", port: 80)
        let string = [UInt8(254)] + Array(repeating: UInt8(ascii: "k"), count: 254)
        let fits = Data(Array(repeating: string, count: 34).joined())
        #expect(service.setTXTRecord(fits))
        #expect(!service.setTXTRecord(fits + string + string))
        #expect(service.txtRecordData() == fits)
    }

    @Test func addressesAreSocketAddressStructures() throws {
        let v4 = try #require(SocketAddressData.make("198.18.0.1", port: 8080))
        #expect(v4.count == MemoryLayout<sockaddr_in>.size)
        v4.withUnsafeBytes { raw in
            let address = raw.load(as: sockaddr_in.self)
            #expect(Int32(address.sin_family) == AF_INET)
            #expect(UInt16(bigEndian: address.sin_port) == 8080)
            #expect(address.sin_addr.s_addr == UInt32(bigEndian: 0xC612_0001))
        }
        let v6 = try #require(SocketAddressData.make("fe80::1%lo", port: 1))
        #expect(v6.count == MemoryLayout<sockaddr_in6>.size)
        v6.withUnsafeBytes { raw in
            let address = raw.load(as: sockaddr_in6.self)
            #expect(Int32(address.sin6_family) == AF_INET6)
            #expect(address.sin6_scope_id == if_nametoindex("lo"))
        }
        #expect(SocketAddressData.make("not an address", port: 1) == nil)
    }

    @Test func errorDictionariesCarryNetServiceCodes() {
        let dictionary = NetService.errorDictionary(.collisionError)
        #expect(dictionary[NetService.errorCode] == NSNumber(value: -72001))
        #expect(dictionary[NetService.errorDomain] != nil)
        #expect(NetService.code(for: CiaoErrorSamples.conflict) == .collisionError)
        #expect(NetService.code(for: CiaoErrorSamples.timeout) == .timeoutError)
        #expect(NetService.code(for: CancellationError()) == .cancelledError)
    }

    @Test func publishingWithABadTypeOrPortFailsAtOnce() {
        let delegate = RecordingDelegate()
        for (type, port) in [("http", Int32(80)), ("_http._tcp.", 0), ("_http._tcp.", 70000)] {
            let service = NetService(domain: "local.", type: type, name: "Web", port: port)
            service.delegate = delegate
            service.publish()
        }
        #expect(delegate.calls == Array(repeating: "didNotPublish -72004", count: 3))
    }

    @Test func resolvingWithABadTypeOrTimeoutFailsAtOnce() {
        let delegate = RecordingDelegate()
        let badType = NetService(domain: "local.", type: "web", name: "Web")
        badType.delegate = delegate
        badType.resolve(withTimeout: 5)
        let badTimeout = NetService(domain: "local.", type: "_http._tcp.", name: "Web")
        badTimeout.delegate = delegate
        badTimeout.resolve(withTimeout: -1)
        #expect(delegate.calls == ["didNotResolve -72004", "didNotResolve -72004"])
    }

    /// Monitoring a service whose type or domain is not valid cannot start; Apple's delegate
    /// has no call for that, so the reason goes to the diagnostics as a warning.
    @Test func monitoringABadTypeOrDomainSaysWhyInTheDiagnostics() async throws {
        let said = Mutex<[String]>([])
        CiaoDiagnostics.setHandler(level: .warning) { diagnostic in
            if diagnostic.message.contains("Monitored") { said.withLock { $0.append(diagnostic.message) } }
        }
        defer { CiaoDiagnostics.setHandler(nil) }
        let badType = NetService(domain: "local.", type: "http", name: "Monitored A")
        badType.startMonitoring()
        // Used on a thread of its own running a run loop, as an application's thread would.
        let thread = RunLoopThread()
        let badDomain = thread.sync {
            let service = NetService(domain: "lab..example.", type: "_http._tcp.", name: "Monitored B")
            service.schedule(in: .current, forMode: .default)
            service.startMonitoring()
            return Unchecked(value: service)
        }
        for _ in 0..<500 where said.withLock({ $0.count }) < 2 { try await Task.sleep(for: .milliseconds(10)) }
        // A monitor that could not start is no monitor: asking again (once the failure has
        // reached the run loop) tries again.
        for _ in 0..<500 where said.withLock({ $0.count }) < 3 {
            thread.sync { badDomain.value.startMonitoring() }
            try await Task.sleep(for: .milliseconds(10))
        }
        thread.sync { badDomain.value.stopMonitoring() }
        let messages = said.withLock { $0 }.sorted()
        #expect(messages.count == 3, "\(messages)")
        #expect(messages.first?.hasPrefix("NetService \"Monitored A\" cannot be monitored: ") == true)
        #expect(messages.dropFirst().allSatisfy { $0.hasPrefix("NetService \"Monitored B\" cannot be monitored: ") })
    }

    @Test func browsingABadTypeOrDomainFailsAtOnce() {
        let delegate = RecordingBrowserDelegate()
        for (type, domain) in [("http", "local."), ("_http._tcp.", "lab..example.")] {
            let browser = NetServiceBrowser()
            browser.delegate = delegate
            browser.searchForServices(ofType: type, inDomain: domain)
        }
        #expect(delegate.calls == ["didNotSearch -72004", "didNotSearch -72004"])
    }
}

/// Resolutions against a fake resolver, the service used, and its delegate called, on a thread
/// of its own running a run loop (as an application's thread would), not on the test's.
@Suite struct NetServiceResolutionTests {
    static let resolved = ResolvedService(
        service: Service(name: "Web", type: try! ServiceType("_http._tcp")), hostName: "alpha.local.", port: 8080,
        addresses: ["198.18.0.2"], txtRecord: try! TXTRecord(entries: []))

    /// Starts resolving on `thread`, with `resolving` as the resolver; returns the service and
    /// its delegate.
    static func resolve(
        on thread: RunLoopThread, timeout: TimeInterval,
        resolving: @escaping @Sendable (Service, Duration) async throws -> ResolvedService
    ) -> Resolution {
        thread.sync {
            let resolution = Resolution()
            resolution.service.schedule(in: .current, forMode: .default)
            resolution.service.resolving = resolving
            resolution.service.resolve(withTimeout: timeout)
            return resolution
        }
    }

    /// A service and its delegate.
    final class Resolution: @unchecked Sendable {
        let service = NetService(domain: "local.", type: "_http._tcp.", name: "Web")
        let delegate = RecordingDelegate()
        init() { service.delegate = delegate }
    }

    /// The delegate calls of `service` once there are `count` of them (or after two minutes), read
    /// on its thread.
    static func calls(of resolution: Resolution, on thread: RunLoopThread, count: Int) async -> [String] {
        await thread.read(count: count) { resolution.delegate.calls }
    }

    /// Apple's documentation: a timeout of 0 means no timeout.
    @Test func aTimeoutOfZeroResolvesWithoutTimeLimit() async {
        let thread = RunLoopThread()
        let asked = Mutex<Duration?>(nil)
        let service = Self.resolve(on: thread, timeout: 0) { _, timeout in
            asked.withLock { $0 = timeout }
            return Self.resolved
        }
        #expect(await Self.calls(of: service, on: thread, count: 3) == ["willResolve", "didResolveAddress", "didStop"])
        #expect(asked.withLock { $0 } == NetService.indefinitely)
        #expect(thread.sync { service.service.port == 8080 && service.service.hostName == "alpha.local." })
    }

    @Test func aResolutionThatTimesOutReportsTheErrorThenStops() async {
        let thread = RunLoopThread()
        let service = Self.resolve(on: thread, timeout: 1.5) { _, timeout in
            #expect(timeout == .milliseconds(1500))
            throw CiaoError.timedOut
        }
        #expect(
            await Self.calls(of: service, on: thread, count: 3) == ["willResolve", "didNotResolve -72007", "didStop"])
    }

    @Test func stoppingAResolutionReportsOnlyTheStop() async throws {
        let thread = RunLoopThread()
        let service = Self.resolve(on: thread, timeout: 30) { _, _ in
            try await Task.sleep(for: .seconds(60))
            return Self.resolved
        }
        thread.sync { service.service.stop() }
        #expect(await Self.calls(of: service, on: thread, count: 2) == ["willResolve", "didStop"])
        // A late delivery of the cancelled resolution would show now.
        try await Task.sleep(for: .milliseconds(200))
        #expect(await Self.calls(of: service, on: thread, count: 2) == ["willResolve", "didStop"])
    }

    /// Foundation on Linux has no socket streams: a clear false, and no streams.
    @Test func streamsAreNotAvailable() {
        let service = NetService(domain: "local.", type: "_http._tcp.", name: "Web")
        var input: InputStream? = InputStream(data: Data())
        var output: OutputStream? = OutputStream(toMemory: ())
        #expect(!service.getInputStream(&input, outputStream: &output))
        #expect(input == nil && output == nil)
    }

    @Test func listeningForConnectionsIsRefused() {
        let delegate = RecordingDelegate()
        let service = NetService(domain: "local.", type: "_http._tcp.", name: "Web", port: 8080)
        service.delegate = delegate
        service.publish(options: .listenForConnections)
        #expect(delegate.calls == ["didNotPublish -72004"])
    }
}

/// Domain searches on a fake domain enumeration, the browser on a run loop thread of its own.
@Suite struct NetServiceBrowserDomainTests {
    /// A browser searching with `fake` as its domain enumeration, and its delegate.
    final class Search: @unchecked Sendable {
        let browser = NetServiceBrowser()
        let delegate = RecordingDomainDelegate()
        init() { browser.delegate = delegate }
    }

    static func start(
        on thread: RunLoopThread, registration: Bool,
        _ fake: @escaping @Sendable (DomainSearch.Purpose) throws(CiaoError) -> AsyncStream<WideAreaBrowse.Event>
    ) -> Search {
        thread.sync {
            let search = Search()
            search.browser.schedule(in: .current, forMode: .default)
            search.browser.domainSearch = fake
            if registration {
                search.browser.searchForRegistrationDomains()
            } else {
                search.browser.searchForBrowsableDomains()
            }
            return search
        }
    }

    static func calls(of search: Search, on thread: RunLoopThread, count: Int) async -> [String] {
        await thread.read(count: count) { search.delegate.calls }
    }

    @Test(arguments: [false, true])
    func localComesFirstThenTheNetworksDomainsAsTheyComeAndGo(registration: Bool) async {
        let thread = RunLoopThread()
        let (events, feed) = AsyncStream<WideAreaBrowse.Event>.makeStream()
        let asked = Mutex<DomainSearch.Purpose?>(nil)
        let search = Self.start(on: thread, registration: registration) { purpose in
            asked.withLock { $0 = purpose }
            return events
        }
        feed.yield(.domainFound("lab.example.", isDefault: true))
        feed.yield(.failed(.network("no reply")))
        feed.yield(.settled)
        feed.yield(.domainFound("0.18.198.in-addr.arpa.", isDefault: false))
        feed.yield(.domainRemoved("lab.example."))
        #expect(
            await Self.calls(of: search, on: thread, count: 5) == [
                "willSearch", "found local.", "found lab.example.", "found 0.18.198.in-addr.arpa.",
                "removed lab.example.",
            ])
        #expect(asked.withLock { $0 } == (registration ? .registration : .browsing))
        thread.sync { search.browser.stop() }
        #expect(await Self.calls(of: search, on: thread, count: 6).last == "didStop")
    }

    @Test func anEnumerationThatCannotStartStillReportsLocal() async {
        let thread = RunLoopThread()
        let search = Self.start(on: thread, registration: false) { _ throws(CiaoError) in
            throw .invalidConfiguration("cannot read /etc/resolv.conf")
        }
        #expect(
            await Self.calls(of: search, on: thread, count: 3) == ["willSearch", "found local.", "didNotSearch -72004"])
    }
}

final class RecordingDomainDelegate: NetServiceBrowserDelegate {
    var calls: [String] = []

    func netServiceBrowserWillSearch(_ browser: NetServiceBrowser) { calls.append("willSearch") }
    func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) { calls.append("didStop") }
    func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool) {
        calls.append("found \(domainString)")
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool) {
        calls.append("removed \(domainString)")
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        calls.append("didNotSearch \(errorDict[NetService.errorCode] ?? 0)")
    }
}

/// A thread running its own run loop, for the objects used from it.
final class RunLoopThread: Sendable {
    private let delivery: RunLoopBound<RunLoop>

    init() {
        let ready = DispatchSemaphore(value: 0)
        let box = Mutex<RunLoopBound<RunLoop>?>(nil)
        let thread = Thread {
            let runLoop = RunLoop.current
            // A run loop with no source or timer returns at once.
            runLoop.add(Timer(timeInterval: 3600, repeats: true) { _ in }, forMode: .default)
            box.withLock { $0 = RunLoopBound(object: runLoop) }
            ready.signal()
            while true { _ = runLoop.run(mode: .default, before: .distantFuture) }
        }
        thread.start()
        ready.wait()
        delivery = box.withLock { $0! }
    }

    /// What `calls` gives, read on the thread, once it has `count` elements or after two minutes:
    /// long enough that only a wrong count waits it out, however busy the machine (under the
    /// whole suite on two cores, five calls took more than 5 s to come).
    func read(count: Int, _ calls: @escaping () -> [String]) async -> [String] {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            let seen = sync(calls)
            if seen.count >= count || ContinuousClock.now >= deadline { return seen }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Runs `body` on the thread, through its run loop, and returns what it returns.
    func sync<Result>(_ body: @escaping () -> Result) -> Result {
        let done = DispatchSemaphore(value: 0)
        let work = Unchecked(value: body)
        let result = Mutex<Unchecked<Result>?>(nil)
        RunLoopDelivery(runLoop: delivery.object, modes: [.default]).deliver {
            let value = work.value()
            result.withLock { $0 = Unchecked(value: value) }
            done.signal()
        }
        done.wait()
        return result.withLock { $0!.value }
    }
}

/// A value handed between the test and the run loop's thread, which never use it at once.
private struct Unchecked<Value>: @unchecked Sendable {
    var value: Value
}

private enum CiaoErrorSamples {
    static let conflict = CiaoError.dnsService(CiaoError.Code.nameConflict)
    static let timeout = CiaoError.timedOut
}

final class RecordingDelegate: NetServiceDelegate {
    var calls: [String] = []

    func netServiceWillResolve(_ sender: NetService) { calls.append("willResolve") }
    func netServiceDidResolveAddress(_ sender: NetService) { calls.append("didResolveAddress") }
    func netServiceDidStop(_ sender: NetService) { calls.append("didStop") }

    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        calls.append("didNotPublish \(errorDict[NetService.errorCode] ?? 0)")
    }

    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {
        calls.append("didNotResolve \(errorDict[NetService.errorCode] ?? 0)")
    }
}

private final class RecordingBrowserDelegate: NetServiceBrowserDelegate {
    var calls: [String] = []

    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        calls.append("didNotSearch \(errorDict[NetService.errorCode] ?? 0)")
    }
}
