#if !canImport(Darwin)
import Ciao
import Foundation

/// Foundation's `NetService` for Linux, on Ciao's engine: publish a service you run, or resolve
/// one that a `NetServiceBrowser` found, with the delegate callbacks Bonjour code relies on,
/// delivered on the run loop the service is scheduled in (the main one by default).
///
/// Not thread-safe, like Foundation's: use it from its run loop's thread.
open class NetService: NSObject {
    /// Options for ``publish(options:)``.
    public struct Options: OptionSet, Sendable {
        /// The options as bits.
        public let rawValue: UInt
        /// Options from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Fail with `collisionError` instead of renaming on a name conflict.
        public static let noAutoRename = Options(rawValue: 1 << 0)
        /// Not supported on Linux: Foundation there has no socket streams to hand accepted
        /// connections over in, so publishing with it fails with `badArgumentError`. Open the
        /// listener yourself and publish its port.
        public static let listenForConnections = Options(rawValue: 1 << 1)
    }

    /// The error codes in the dictionaries given to `didNotPublish` and `didNotResolve`.
    public enum ErrorCode: Int, Sendable {
        /// A failure with no more specific code, such as a network error.
        case unknownError = -72000
        /// The name is taken on the network and ``Options/noAutoRename`` forbade another.
        case collisionError = -72001
        /// The service was not found. Not reported on Linux: a resolution that finds nothing
        /// reports ``timeoutError``.
        case notFoundError = -72002
        /// The object is already publishing, resolving or searching.
        case activityInProgress = -72003
        /// An argument is invalid: the type, the port, the domain, the timeout, or
        /// ``Options/listenForConnections`` on Linux.
        case badArgumentError = -72004
        /// The operation was cancelled before it finished.
        case cancelledError = -72005
        /// The object is in an invalid state. Not reported on Linux.
        case invalidError = -72006
        /// The operation did not finish within its timeout.
        case timeoutError = -72007
        /// Apple platforms report it when the app lacks the configuration local networking
        /// requires. Not reported on Linux.
        case missingRequiredConfigurationError = -72008
    }

    /// Keys of the error dictionaries.
    public static let errorCode = "NSNetServicesErrorCode"
    /// The key of the error domain in the error dictionaries; Ciao sets it to 10.
    public static let errorDomain = "NSNetServicesErrorDomain"

    /// The object told of publishing, resolving and TXT changes; held weakly.
    public weak var delegate: (any NetServiceDelegate)?
    /// Accepted for source compatibility; multicast DNS runs on the network interfaces only.
    public var includesPeerToPeer = false
    /// The instance name; once published, the name in use, which a conflict may have changed.
    public private(set) var name: String
    /// The service type as given, such as `_http._tcp.`.
    public let type: String
    /// The domain; an empty one given becomes `local.` (multicast DNS). Another domain is browsed
    /// and resolved by unicast DNS, and published in by DNS UPDATE with ``wideAreaOptions``.
    public let domain: String
    /// Ciao's own: the key (and optionally server and host name) that publishing in a domain
    /// other than `local.` signs its DNS UPDATEs with, which Apple's platforms take from the
    /// system's settings. Without it such a publication fails with `badArgumentError`.
    public var wideAreaOptions: WideAreaOptions?
    /// The port: given when publishing, learnt by resolving; -1 until then.
    public private(set) var port: Int
    /// The target host of the service, after resolving.
    public private(set) var hostName: String?
    /// `sockaddr_in` / `sockaddr_in6` structures, port included, after resolving.
    public private(set) var addresses: [Data]?

    private var txtRecord: Data?
    private var delivery = RunLoopDelivery.main
    private var server: CiaoServer?
    private var activity: Task<Void, Never>?
    private var monitor: Task<Void, Never>?
    /// Counts ``startMonitoring()``'s monitors, so that one that ends lets a new one start
    /// without ending a newer one.
    private var monitorGeneration = 0
    /// How a resolution is made: the engine's resolver, or a fake in tests.
    var resolving: @Sendable (Service, Duration) async throws -> ResolvedService = {
        try await CiaoResolver.resolve($0, timeout: $1)
    }
    /// The timeout of a resolution asked for with none (0): longer than any process lives.
    static let indefinitely = Duration.seconds(Int64(Int32.max))

    /// A service to publish on `port`.
    public init(domain: String, type: String, name: String, port: Int32) {
        self.domain = domain.isEmpty ? "local." : domain
        self.type = type
        self.name = name
        self.port = Int(port)
    }

    /// A service to resolve, by its name, type and domain.
    public convenience init(domain: String, type: String, name: String) {
        self.init(domain: domain, type: type, name: name, port: -1)
    }

    deinit {
        activity?.cancel()
        monitor?.cancel()
    }

    // MARK: Run loops

    /// Delivers delegate callbacks on `runLoop` in `mode` from now on. On Linux the service has
    /// one run loop and mode at a time: this replaces the earlier one.
    open func schedule(in runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        delivery = RunLoopDelivery(runLoop: runLoop, modes: [mode])
    }

    /// Stops delivery on `runLoop`. On Linux callbacks then go to the main run loop again, and
    /// `mode` is not looked at.
    open func remove(from runLoop: RunLoop, forMode mode: RunLoop.Mode) {
        if delivery.runLoop === runLoop { delivery = .main }
    }

    // MARK: Publishing

    /// Publishes with no options: a conflict renames the service.
    open func publish() {
        publish(options: [])
    }

    /// Publishes the service on its port; `netServiceWillPublish`, then `netServiceDidPublish`
    /// with ``name`` set to the name in use, or `netService(_:didNotPublish:)`.
    open func publish(options: Options = []) {
        guard activity == nil else { return report(didNotPublish: .activityInProgress) }
        guard let serviceType = try? ServiceType(observed: type), (1...65535).contains(port),
            !options.contains(.listenForConnections)
        else {
            return report(didNotPublish: .badArgumentError)
        }
        var configuration = PublicationConfiguration(
            type: serviceType, name: name, domain: domain, port: UInt16(port), mode: .externalPort,
            allowsRenaming: !options.contains(.noAutoRename), wideArea: wideAreaOptions)
        if let txtRecord, let parsed = try? TXTRecord(wireData: txtRecord) { configuration.txtRecord = parsed }
        delegate?.netServiceWillPublish(self)
        let server = CiaoServer()
        self.server = server
        let this = RunLoopBound(object: self), delivery = self.delivery, request = configuration
        activity = Task {
            do {
                let published = try await server.start(request)
                delivery.deliver {
                    this.object.name = published.service.name
                    this.object.delegate?.netServiceDidPublish(this.object)
                }
            } catch {
                delivery.deliver {
                    this.object.activity = nil
                    this.object.server = nil
                    this.object.report(didNotPublish: NetService.code(for: error))
                }
            }
        }
    }

    // MARK: Resolving

    /// Resolves within 5 seconds: ``resolve(withTimeout:)`` with 5.
    @available(*, deprecated, message: "Use resolve(withTimeout:) instead.")
    open func resolve() {
        resolve(withTimeout: 5)
    }

    /// Looks up host, port, addresses and TXT within `timeout` seconds (0: without a time limit,
    /// until `stop()`): `netServiceWillResolve`, then `netServiceDidResolveAddress` or
    /// `netService(_:didNotResolve:)`, then `netServiceDidStop` as the resolution ends. A
    /// resolution ended by `stop()` reports only `netServiceDidStop`.
    open func resolve(withTimeout timeout: TimeInterval) {
        guard activity == nil else { return report(didNotResolve: .activityInProgress) }
        guard let serviceType = try? ServiceType(observed: type), timeout >= 0, timeout.isFinite else {
            return report(didNotResolve: .badArgumentError)
        }
        delegate?.netServiceWillResolve(self)
        let service = Service(name: name, type: serviceType, domain: domain)
        let limit = timeout == 0 ? Self.indefinitely : .milliseconds(max(1, Int((timeout * 1000).rounded(.up))))
        let this = RunLoopBound(object: self), delivery = self.delivery, resolving = self.resolving
        activity = Task {
            do {
                let resolved = try await resolving(service, limit)
                delivery.deliver {
                    // Unless stop() came first.
                    guard this.object.activity != nil else { return }
                    this.object.activity = nil
                    this.object.apply(resolved)
                    this.object.delegate?.netServiceDidResolveAddress(this.object)
                    this.object.delegate?.netServiceDidStop(this.object)
                }
            } catch {
                // stop() cancelled it and reports netServiceDidStop itself.
                guard !Task.isCancelled else { return }
                delivery.deliver {
                    guard this.object.activity != nil else { return }
                    this.object.activity = nil
                    this.object.report(didNotResolve: NetService.code(for: error))
                    this.object.delegate?.netServiceDidStop(this.object)
                }
            }
        }
    }

    /// Stops publishing or resolving; `netServiceDidStop` follows (goodbyes sent first).
    open func stop() {
        activity?.cancel()
        activity = nil
        let server = self.server
        self.server = nil
        let this = RunLoopBound(object: self), delivery = self.delivery
        Task {
            await server?.stop()
            delivery.deliver { this.object.delegate?.netServiceDidStop(this.object) }
        }
    }

    // MARK: Connecting

    /// Apple's NetService connects to the resolved service and returns the two streams of the
    /// connection. Foundation on Linux has no socket-backed streams (it lacks
    /// `Stream.getStreamsToHost`), so this sets both to nil and returns false: connect a socket of
    /// your own to ``hostName`` or one of ``addresses`` on ``port`` instead.
    open func getInputStream(
        _ inputStream: UnsafeMutablePointer<InputStream?>?, outputStream: UnsafeMutablePointer<OutputStream?>?
    ) -> Bool {
        inputStream?.pointee = nil
        outputStream?.pointee = nil
        return false
    }

    // MARK: TXT record

    /// The TXT record data: as set with ``setTXTRecord(_:)``, or as last resolved or monitored;
    /// nil before any.
    open func txtRecordData() -> Data? {
        txtRecord
    }

    /// Sets the TXT record (RFC 6763 §6 wire format), announcing it at once when published.
    /// Returns false for data that is not a valid TXT record, or that would not fit one packet
    /// under the service's name.
    @discardableResult
    open func setTXTRecord(_ recordData: Data?) -> Bool {
        guard let parsed = try? TXTRecord(wireData: recordData ?? Data([0])) else { return false }
        if let serviceType = try? ServiceType(observed: type) {
            do {
                // A published name can grow by renaming, up to 63 bytes: it counts at its longest.
                try PublicationConfiguration.checkFits(parsed, name: server == nil ? name : "", type: serviceType)
            } catch {
                return false
            }
        }
        txtRecord = recordData
        if let server {
            // The record fits under any name the service may take, so the one failure left is
            // `stopped`: stop() came first.
            Task { try? await server.updateTXT(parsed) }
        }
        return true
    }

    /// Reports TXT changes of a resolved service through `netService(_:didUpdateTXTRecord:)`.
    /// Apple's delegate has no call for a monitor that fails; the reason goes to the diagnostics
    /// (`CiaoDiagnostics` in the Ciao module) as a warning, and monitoring can be started again.
    open func startMonitoring() {
        guard monitor == nil else { return }
        let serviceType: ServiceType
        do {
            serviceType = try ServiceType(observed: type)
        } catch {
            Self.reportUnmonitored(name, error)
            return
        }
        let service = Service(name: name, type: serviceType, domain: domain)
        let this = RunLoopBound(object: self), delivery = self.delivery
        // Only changes are news: the record already known (from resolving) is not reported again.
        let known = txtRecord.flatMap { try? TXTRecord(wireData: $0) }
        monitorGeneration += 1
        let generation = monitorGeneration
        monitor = Task {
            await NetService.reportTXTChanges(of: service, after: known, to: this, via: delivery)
            delivery.deliver { this.object.monitorEnded(generation) }
        }
    }

    /// ``startMonitoring()``'s work: browses `service`'s type and hands each TXT record of
    /// `service` that differs from the last (at first `known`) to the delegate.
    private static func reportTXTChanges(
        of service: Service, after known: TXTRecord?, to this: RunLoopBound<NetService>, via delivery: RunLoopDelivery
    ) async {
        let session: DiscoverySession
        do {
            session = try await CiaoBrowser().browse(type: service.type, domain: service.domain)
        } catch {
            // stopMonitoring() cancels the task: an end it asked for, not a failure.
            if !Task.isCancelled { reportUnmonitored(service.name, error) }
            return
        }
        var last = known
        do {
            for try await event in session.events {
                guard case .resolved(let resolved) = event, resolved.service.name == service.name,
                    resolved.txtRecord != last
                else { continue }
                last = resolved.txtRecord
                let data = resolved.txtRecord.wireData
                delivery.deliver {
                    this.object.txtRecord = data
                    this.object.delegate?.netService(this.object, didUpdateTXTRecord: data)
                }
            }
        } catch {
            // stopMonitoring() cancels the task: an end it asked for, not a failure.
            if !Task.isCancelled {
                CiaoDiagnostics.emit(.warning, .query, "monitoring NetService \"\(service.name)\" stopped: \(error)")
            }
        }
        await session.stop()
    }

    /// Ends the monitoring ``startMonitoring()`` began.
    open func stopMonitoring() {
        monitor?.cancel()
        monitor = nil
    }

    /// A monitor's task has ended: unless a newer one has started since, there is none now.
    private func monitorEnded(_ generation: Int) {
        if generation == monitorGeneration { monitor = nil }
    }

    private static func reportUnmonitored(_ name: String, _ error: any Error) {
        CiaoDiagnostics.emit(.warning, .query, "NetService \"\(name)\" cannot be monitored: \(error)")
    }

    /// The key/value pairs of TXT data, each key as the peer spelled it (as Apple's does); a flag
    /// (a key without `=`) maps to empty data; of a key given twice, the first wins.
    open class func dictionary(fromTXTRecord txtData: Data) -> [String: Data] {
        guard let record = try? TXTRecord(wireData: txtData) else { return [:] }
        var dictionary: [String: Data] = [:]
        var seen: Set<String> = []
        for entry in record.entries where seen.insert(entry.key.lowercased()).inserted {
            if case .bytes(let data) = entry.value {
                dictionary[entry.key] = data
            } else {
                dictionary[entry.key] = Data()
            }
        }
        return dictionary
    }

    /// TXT data for key/value pairs, keys as spelled, `txtvers` first and the others in byte
    /// order; empty data when a key or entry is not valid.
    open class func data(fromTXTRecord txtDictionary: [String: Data]) -> Data {
        let sorted = txtDictionary.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let ordered =
            sorted.filter { $0.key.lowercased() == "txtvers" } + sorted.filter { $0.key.lowercased() != "txtvers" }
        let entries = ordered.map { TXTRecord.Entry(key: $0.key, value: .bytes($0.value)) }
        return (try? TXTRecord(entries: entries))?.wireData ?? Data()
    }

    // MARK: Internals

    private func apply(_ resolved: ResolvedService) {
        hostName = resolved.hostName
        port = Int(resolved.port)
        addresses = resolved.addresses.compactMap { SocketAddressData.make($0, port: resolved.port) }
        txtRecord = resolved.txtRecord.wireData
    }

    private func report(didNotPublish code: ErrorCode) {
        delegate?.netService(self, didNotPublish: Self.errorDictionary(code))
    }

    private func report(didNotResolve code: ErrorCode) {
        delegate?.netService(self, didNotResolve: Self.errorDictionary(code))
    }

    static func errorDictionary(_ code: ErrorCode) -> [String: NSNumber] {
        [errorCode: NSNumber(value: code.rawValue), errorDomain: NSNumber(value: 10)]
    }

    static func code(for error: any Error) -> ErrorCode {
        switch error {
        case CiaoError.dnsService(CiaoError.Code.nameConflict): .collisionError
        case CiaoError.timedOut: .timeoutError
        case CiaoError.stopped, is CancellationError: .cancelledError
        case CiaoError.invalidConfiguration, CiaoError.invalidServiceType, CiaoError.invalidTXTRecord: .badArgumentError
        default: .unknownError
        }
    }
}
#endif
