import Synchronization
import Testing

@testable import Ciao

// Test support for the public API's lifecycle tests: a fake ``DiscoveryBackend`` that records every
// call and lets a test deliver updates to the registered callbacks, plus small helpers to await a
// specific state or event with a short deadline instead of sleeping.

/// Thrown when something awaited did not happen within its deadline.
struct DeadlineExceeded: Error, CustomStringConvertible {
    var what: String
    var limit: Duration
    var description: String { "\(what) did not happen within \(limit)" }
}

/// A value under a lock that tasks can wait on until it satisfies a predicate.
final class Observed<Value: Sendable>: Sendable {
    private struct Waiter {
        var predicate: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Inner {
        var value: Value
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let inner: Mutex<Inner>

    init(_ value: Value) {
        inner = Mutex(Inner(value: value))
    }

    var value: Value { inner.withLock { $0.value } }

    func read<R: Sendable>(_ body: (Value) -> R) -> R {
        inner.withLock { body($0.value) }
    }

    /// Changes the value and wakes the waiters it now satisfies (resumed outside the lock).
    func update<R: Sendable>(_ body: (inout Value) -> R) -> R {
        let (result, ready) = inner.withLock { inner -> (R, [CheckedContinuation<Void, any Error>]) in
            let result = body(&inner.value)
            var ready: [CheckedContinuation<Void, any Error>] = []
            for (id, waiter) in inner.waiters where waiter.predicate(inner.value) {
                inner.waiters[id] = nil
                ready.append(waiter.continuation)
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Returns once `predicate` holds; throws ``DeadlineExceeded`` after `limit`.
    func wait(
        _ what: String, within limit: Duration = .seconds(30), until predicate: @escaping @Sendable (Value) -> Bool
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.waitWithoutDeadline(until: predicate) }
            group.addTask {
                try await Task.sleep(for: limit)
                throw DeadlineExceeded(what: what, limit: limit)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    private func waitWithoutDeadline(until predicate: @escaping @Sendable (Value) -> Bool) async throws {
        let id = inner.withLock { inner -> UInt64 in
            inner.nextWaiter += 1
            return inner.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = inner.withLock { inner -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if predicate(inner.value) { return .success(()) }
                    inner.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = inner.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// Consumes an asynchronous sequence on its own task, so that a test can await its elements one
/// at a time, each with a deadline.
final class StreamRecorder<Element: Sendable>: Sendable {
    struct State: Sendable {
        var elements: [Element] = []
        var consumed = 0
        var finished = false
        var failure: (any Error)?
    }

    let state = Observed(State())
    private let task = Mutex<Task<Void, Never>?>(nil)

    init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Element {
        let state = self.state
        let consumer = Task {
            do {
                for try await element in sequence {
                    state.update { $0.elements.append(element) }
                }
                state.update { $0.finished = true }
            } catch {
                state.update {
                    $0.failure = error
                    $0.finished = true
                }
            }
        }
        task.withLock { $0 = consumer }
    }

    /// The next element, or nil once the sequence has finished; rethrows the sequence's error.
    func next(within limit: Duration = .seconds(30)) async throws -> Element? {
        try await state.wait("the next element", within: limit) { $0.consumed < $0.elements.count || $0.finished }
        let result = state.update { state -> Result<Element?, any Error> in
            if state.consumed < state.elements.count {
                state.consumed += 1
                return .success(state.elements[state.consumed - 1])
            }
            if let failure = state.failure { return .failure(failure) }
            return .success(nil)
        }
        return try result.get()
    }

    /// Every element not yet taken with ``next(within:)``, once the sequence has finished.
    func remainder(within limit: Duration = .seconds(30)) async throws -> [Element] {
        try await state.wait("the end of the sequence", within: limit) { $0.finished }
        return state.update { state in
            let rest = Array(state.elements[state.consumed...])
            state.consumed = state.elements.count
            return rest
        }
    }

    /// Elements until (and including) the first that satisfies `isLast`.
    func elements(through isLast: @escaping @Sendable (Element) -> Bool, within limit: Duration = .seconds(30))
        async throws -> [Element]
    {
        var collected: [Element] = []
        while let element = try await next(within: limit) {
            collected.append(element)
            if isLast(element) { return collected }
        }
        throw DeadlineExceeded(what: "an element matching the predicate before the end", limit: limit)
    }

    var isFinished: Bool { state.read { $0.finished } }

    /// Stops consuming (the consuming task is cancelled).
    func cancel() {
        task.withLock { $0?.cancel() }
    }
}

/// The result of `task`, which is cancelled if it has not finished after `limit`.
func result<T: Sendable>(of task: Task<T, any Error>, within limit: Duration = .seconds(30)) async throws -> T {
    let timer = Task {
        try await Task.sleep(for: limit)
        task.cancel()
    }
    defer { timer.cancel() }
    return try await task.value
}

/// `body`'s result, or ``DeadlineExceeded`` after `limit` (`body` is then cancelled, and must end).
func withDeadline<T: Sendable>(
    _ what: String, _ limit: Duration = .seconds(30), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DeadlineExceeded(what: what, limit: limit)
        }
        return value
    }
}

/// A ``DiscoveryBackend`` without network: it records calls and hands out tokens; a test delivers
/// updates with the `emit` functions, from any thread. As the protocol requires, no protocol method
/// ever calls a callback itself. Callbacks stay registered after ``cancel(_:)``, so a test can
/// deliver a late callback ("already under way") for a cancelled token.
final class FakeBackend: DiscoveryBackend, Sendable {
    enum Call: Hashable, Sendable {
        case publish(BackendToken, Publication)
        case updateTXT(BackendToken, TXTRecord)
        case browse(BackendToken, ServiceType)
        case resolve(BackendToken, Service)
        case reconfirm(BackendToken, Service)
        case browseTypes(BackendToken)
        case lookUp(BackendToken, RecordLookup)
        case cancel(BackendToken)
    }

    enum Operation: Hashable, Sendable {
        case publish, browse, resolve, browseTypes, lookUp
    }

    struct State: Sendable {
        var calls: [Call] = []
        var pendingWaits = 0
        var lastToken: UInt64 = 0
        var publishCallbacks: [BackendToken: @Sendable (PublicationUpdate) -> Void] = [:]
        var browseCallbacks: [BackendToken: @Sendable ([BrowseUpdate]) -> Void] = [:]
        var resolveCallbacks: [BackendToken: @Sendable (ResolutionUpdate) -> Void] = [:]
        var typeCallbacks: [BackendToken: @Sendable (ServiceType) -> Void] = [:]
        var lookupCallbacks: [BackendToken: @Sendable (LookupUpdate) -> Void] = [:]
        /// The next call of each operation throws this error instead.
        var failures: [Operation: CiaoError] = [:]
        /// Run inside the next ``updateTXT(_:of:)``, synchronously on the caller's thread.
        var updateTXTHook: (@Sendable () -> Void)?
        /// What ``hasUsableInterface`` says.
        var interfacesPresent = true
        /// What ``asksOverIPv4`` says: false for a scope of IPv6 alone.
        var asksOverIPv4 = true
        /// The subtype each browse asked for, if any.
        var browseSubtypes: [BackendToken: String] = [:]
        /// The resolution timeout each browse asked for, when it resolves what it finds.
        var browseResolutionTimeouts: [BackendToken: Duration] = [:]

        mutating func makeToken() -> BackendToken {
            lastToken += 1
            return BackendToken(rawValue: lastToken)
        }

        var publications: [(token: BackendToken, publication: Publication)] {
            calls.compactMap { if case .publish(let token, let publication) = $0 { (token, publication) } else { nil } }
        }
        var browses: [(token: BackendToken, type: ServiceType)] {
            calls.compactMap { if case .browse(let token, let type) = $0 { (token, type) } else { nil } }
        }
        var resolutions: [(token: BackendToken, service: Service)] {
            calls.compactMap { if case .resolve(let token, let service) = $0 { (token, service) } else { nil } }
        }
        var typeBrowses: [BackendToken] {
            calls.compactMap { if case .browseTypes(let token) = $0 { token } else { nil } }
        }
        var lookups: [(token: BackendToken, lookup: RecordLookup)] {
            calls.compactMap { if case .lookUp(let token, let lookup) = $0 { (token, lookup) } else { nil } }
        }
        var txtUpdates: [(token: BackendToken, txtRecord: TXTRecord)] {
            calls.compactMap { if case .updateTXT(let token, let txt) = $0 { (token, txt) } else { nil } }
        }
        var cancelled: [BackendToken] {
            calls.compactMap { if case .cancel(let token) = $0 { token } else { nil } }
        }
    }

    let state = Observed(State())

    // MARK: DiscoveryBackend

    func publish(_ publication: Publication, onUpdate: @escaping @Sendable (PublicationUpdate) -> Void)
        throws(CiaoError)
        -> BackendToken
    {
        try state.update { state -> Result<BackendToken, CiaoError> in
            if let failure = state.failures.removeValue(forKey: .publish) { return .failure(failure) }
            let token = state.makeToken()
            state.publishCallbacks[token] = onUpdate
            state.calls.append(.publish(token, publication))
            return .success(token)
        }.get()
    }

    func updateTXT(_ txtRecord: TXTRecord, of publication: BackendToken) {
        let hook = state.update { state in
            state.calls.append(.updateTXT(publication, txtRecord))
            defer { state.updateTXTHook = nil }
            return state.updateTXTHook
        }
        hook?()
    }

    func browse(
        type: ServiceType, subtype: String?, resolutionTimeout: Duration?,
        onUpdate: @escaping @Sendable ([BrowseUpdate]) -> Void
    ) throws(CiaoError) -> BackendToken {
        try state.update { state -> Result<BackendToken, CiaoError> in
            if let failure = state.failures.removeValue(forKey: .browse) { return .failure(failure) }
            let token = state.makeToken()
            state.browseCallbacks[token] = onUpdate
            state.browseSubtypes[token] = subtype
            state.browseResolutionTimeouts[token] = resolutionTimeout
            state.calls.append(.browse(token, type))
            return .success(token)
        }.get()
    }

    func reconfirm(_ service: Service, of browse: BackendToken) {
        state.update { state in state.calls.append(.reconfirm(browse, service)) }
    }

    func resolve(_ service: Service, onUpdate: @escaping @Sendable (ResolutionUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    {
        try state.update { state -> Result<BackendToken, CiaoError> in
            if let failure = state.failures.removeValue(forKey: .resolve) { return .failure(failure) }
            let token = state.makeToken()
            state.resolveCallbacks[token] = onUpdate
            state.calls.append(.resolve(token, service))
            return .success(token)
        }.get()
    }

    func browseTypes(onUpdate: @escaping @Sendable (ServiceType) -> Void) throws(CiaoError) -> BackendToken {
        try state.update { state -> Result<BackendToken, CiaoError> in
            if let failure = state.failures.removeValue(forKey: .browseTypes) { return .failure(failure) }
            let token = state.makeToken()
            state.typeCallbacks[token] = onUpdate
            state.calls.append(.browseTypes(token))
            return .success(token)
        }.get()
    }

    func lookUp(_ lookup: RecordLookup, onUpdate: @escaping @Sendable (LookupUpdate) -> Void) throws(CiaoError)
        -> BackendToken
    {
        try state.update { state -> Result<BackendToken, CiaoError> in
            if let failure = state.failures.removeValue(forKey: .lookUp) { return .failure(failure) }
            let token = state.makeToken()
            state.lookupCallbacks[token] = onUpdate
            state.calls.append(.lookUp(token, lookup))
            return .success(token)
        }.get()
    }

    func cancel(_ token: BackendToken) {
        state.update { $0.calls.append(.cancel(token)) }
    }

    func waitForPending() async {
        state.update { $0.pendingWaits += 1 }
    }

    var hasUsableInterface: Bool { state.read { $0.interfacesPresent } }

    var asksOverIPv4: Bool { state.read { $0.asksOverIPv4 } }

    // MARK: Inspection

    var calls: [Call] { state.read { $0.calls } }
    var publications: [(token: BackendToken, publication: Publication)] { state.read { $0.publications } }
    var browses: [(token: BackendToken, type: ServiceType)] { state.read { $0.browses } }
    var resolutions: [(token: BackendToken, service: Service)] { state.read { $0.resolutions } }
    var typeBrowses: [BackendToken] { state.read { $0.typeBrowses } }
    var lookups: [(token: BackendToken, lookup: RecordLookup)] { state.read { $0.lookups } }
    var txtUpdates: [(token: BackendToken, txtRecord: TXTRecord)] { state.read { $0.txtUpdates } }
    var cancelled: [BackendToken] { state.read { $0.cancelled } }

    func isCancelled(_ token: BackendToken) -> Bool { cancelled.contains(token) }
    func cancelCount(_ token: BackendToken) -> Int { cancelled.filter { $0 == token }.count }

    /// Runs `hook` inside the next ``updateTXT(_:of:)``: a way to keep the caller (an actor) busy.
    func duringNextUpdateTXT(_ hook: @escaping @Sendable () -> Void) {
        state.update { $0.updateTXTHook = hook }
    }

    /// Makes the next call of `operation` throw `error`.
    func failNext(_ operation: Operation, with error: CiaoError) {
        state.update { $0.failures[operation] = error }
    }

    // MARK: Awaiting calls

    /// The `index`th publication (0-based), once it has been asked for.
    func publication(_ index: Int = 0, within limit: Duration = .seconds(30)) async throws
        -> (token: BackendToken, publication: Publication)
    {
        try await state.wait("publication #\(index)", within: limit) { $0.publications.count > index }
        return state.read { $0.publications[index] }
    }

    /// The `index`th browse (0-based), once it has been asked for.
    func browse(_ index: Int = 0, within limit: Duration = .seconds(30)) async throws -> BackendToken {
        try await state.wait("browse #\(index)", within: limit) { $0.browses.count > index }
        return state.read { $0.browses[index].token }
    }

    /// The token of the resolution of `service`, once it has been asked for.
    func resolution(of service: Service, within limit: Duration = .seconds(30)) async throws -> BackendToken {
        try await state.wait("resolution of \(service.name)", within: limit) {
            $0.resolutions.contains { $0.service == service }
        }
        return state.read { $0.resolutions.first { $0.service == service }!.token }
    }

    /// The `index`th type enumeration (0-based), once it has been asked for.
    func typeBrowse(_ index: Int = 0, within limit: Duration = .seconds(30)) async throws -> BackendToken {
        try await state.wait("type browse #\(index)", within: limit) { $0.typeBrowses.count > index }
        return state.read { $0.typeBrowses[index] }
    }

    /// The `index`th record lookup (0-based), once it has been asked for.
    func lookup(_ index: Int = 0, within limit: Duration = .seconds(30)) async throws
        -> (token: BackendToken, lookup: RecordLookup)
    {
        try await state.wait("lookup #\(index)", within: limit) { $0.lookups.count > index }
        return state.read { $0.lookups[index] }
    }

    /// Returns once `token` has been cancelled.
    func cancellation(of token: BackendToken, within limit: Duration = .seconds(30)) async throws {
        try await state.wait("cancellation of token \(token.rawValue)", within: limit) { $0.cancelled.contains(token) }
    }

    // MARK: Delivering updates (the backend's thread)

    func emitPublication(_ token: BackendToken, _ update: PublicationUpdate) {
        guard let callback = state.read({ $0.publishCallbacks[token] }) else {
            Issue.record("no publication has token \(token.rawValue)")
            return
        }
        callback(update)
    }

    func emitRegistered(_ token: BackendToken, name: String, hostName: String = "fake-host.local.") {
        emitPublication(token, .registered(name: name, hostName: hostName))
    }

    func emitNameConflict(_ token: BackendToken) {
        emitPublication(token, .nameConflict)
    }

    func emitBrowse(_ token: BackendToken, _ updates: [BrowseUpdate]) {
        guard let callback = state.read({ $0.browseCallbacks[token] }) else {
            Issue.record("no browse has token \(token.rawValue)")
            return
        }
        callback(updates)
    }

    func emitResolved(_ token: BackendToken, _ resolved: ResolvedService) {
        emitResolution(token, .resolved(resolved))
    }

    func emitResolution(_ token: BackendToken, _ update: ResolutionUpdate) {
        guard let callback = state.read({ $0.resolveCallbacks[token] }) else {
            Issue.record("no resolution has token \(token.rawValue)")
            return
        }
        callback(update)
    }

    func emitType(_ token: BackendToken, _ type: ServiceType) {
        guard let callback = state.read({ $0.typeCallbacks[token] }) else {
            Issue.record("no type browse has token \(token.rawValue)")
            return
        }
        callback(type)
    }

    func emitRecords(_ token: BackendToken, _ events: [RecordEvent]) {
        emitLookup(token, .changes(events))
    }

    func emitLookup(_ token: BackendToken, _ update: LookupUpdate) {
        guard let callback = state.read({ $0.lookupCallbacks[token] }) else {
            Issue.record("no lookup has token \(token.rawValue)")
            return
        }
        callback(update)
    }
}
