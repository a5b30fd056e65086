import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The whole state of `ciao explore`, fed with discovery and publication events and with keys,
/// and drawn by ``ExploreView``; it does no I/O, so every screen can be checked without a
/// terminal or a network.
struct ExploreModel {
    enum Mode: Equatable {
        /// The types on the network, a type's instances and an instance's details.
        case browse
        /// This program's own publications.
        case publish
    }

    /// The browse view's columns, left to right; the focused one takes the arrow keys.
    enum Column: Int, Equatable {
        case types, instances, details
    }

    /// How long an instance that went away stays on the list, marked gone.
    static let goneLifetime: TimeInterval = 60

    var mode = Mode.browse
    var column = Column.types
    private(set) var types: [ServiceType] = []
    private(set) var instances: [Service.ID: DiscoveredInstance] = [:]
    var selectedType: ServiceType?
    var selectedInstance: Service.ID?
    /// Lines the details column is scrolled by.
    var detailsScroll = 0
    /// The filter on type and instance names; applied as it is typed.
    var search = ""
    var isEditingSearch = false
    var showsHelp = false
    private(set) var publications: [Publication] = []
    var selectedPublication: Int?
    var form: PublishForm?
    /// A line for the status bar: the last failure or confirmation.
    var message: String?
    /// Whether the network scope has a usable interface; without one nothing can be found.
    var hasInterface = true
    private var nextPublicationID = 1

    // MARK: Events

    /// A type announced on the network (RFC 6763 §9).
    mutating func typeFound(_ type: ServiceType) {
        guard !types.contains(type) else { return }
        let index = types.firstIndex { Self.precedes(type.rawValue, $0.rawValue) } ?? types.endIndex
        types.insert(type, at: index)
    }

    /// A browse event for one of the types, its service seen on the interface named so.
    mutating func discovery(_ event: DiscoveryEvent, interfaceName: String, at time: Date) {
        switch event {
        case .started, .stopped:
            return
        case .found(let service):
            typeFound(service.type)
            instances[service.id] = DiscoveredInstance(
                service: service, interfaceName: interfaceName, lastSeen: time)
        case .removed(let service):
            instances[service.id]?.removedAt = time
            instances[service.id]?.lastSeen = time
        case .resolved(let resolved):
            let id = resolved.service.id
            if instances[id] == nil {
                instances[id] = DiscoveredInstance(
                    service: resolved.service, interfaceName: interfaceName, lastSeen: time)
            }
            instances[id]?.resolved = resolved
            instances[id]?.failure = nil
            instances[id]?.lastSeen = time
        case .resolutionFailed(let service, let error):
            instances[service.id]?.failure = error.description
            instances[service.id]?.lastSeen = time
        }
    }

    /// Drops instances gone for longer than ``goneLifetime``, so the list stays bounded.
    mutating func expire(at time: Date) {
        instances = instances.filter { _, instance in
            instance.removedAt.map { time.timeIntervalSince($0) < Self.goneLifetime } ?? true
        }
    }

    /// Publication `id` is announced (again, after a rename).
    mutating func publicationStarted(_ id: Int, _ published: PublishedService) {
        update(id) { $0.state = .running(published) }
    }

    mutating func publicationStopped(_ id: Int) {
        update(id) { $0.state = .stopped }
    }

    mutating func publicationFailed(_ id: Int, _ reason: String) {
        update(id) { $0.state = .failed(reason) }
        message = "publishing failed: \(reason)"
    }

    /// The TXT update of publication `id` took effect.
    mutating func txtUpdated(_ id: Int, _ record: TXTRecord) {
        update(id) { $0.configuration.txtRecord = record }
        message = "TXT updated"
    }

    private mutating func update(_ id: Int, _ change: (inout Publication) -> Void) {
        guard let index = publications.firstIndex(where: { $0.id == id }) else { return }
        change(&publications[index])
    }

    // MARK: What is shown

    /// The types shown: all, or with a search those whose name or any of whose instances' names
    /// contain it (letter case ignored).
    var visibleTypes: [ServiceType] {
        guard !search.isEmpty else { return types }
        let matching = Set(instances.values.filter { matches($0.service.name) }.map(\.service.type))
        return types.filter { matches($0.rawValue) || matching.contains($0) }
    }

    /// The instances of the selected type shown, by name then interface.
    var visibleInstances: [DiscoveredInstance] {
        guard let type = selectedType ?? visibleTypes.first else { return [] }
        return instances.values.filter { instance in
            instance.service.type == type
                && (search.isEmpty || matches(instance.service.name) || matches(type.rawValue))
        }.sorted { left, right in
            left.service.name == right.service.name
                ? left.interfaceName < right.interfaceName : Self.precedes(left.service.name, right.service.name)
        }
    }

    /// The instance whose details are shown.
    var shownInstance: DiscoveredInstance? {
        let list = visibleInstances
        return list.first { $0.service.id == selectedInstance } ?? (column == .types ? nil : list.first)
    }

    /// The number of services live on the network.
    var liveCount: Int { instances.values.filter { !$0.isGone }.count }

    private func matches(_ text: String) -> Bool {
        text.lowercased().contains(search.lowercased())
    }

    private static func precedes(_ left: String, _ right: String) -> Bool {
        let (a, b) = (left.lowercased(), right.lowercased())
        return a == b ? left < right : a < b
    }

    // MARK: Publishing

    /// Adds a publication and returns the action that starts it.
    mutating func addPublication(_ configuration: PublicationConfiguration) -> ExploreAction {
        let id = nextPublicationID
        nextPublicationID += 1
        publications.append(Publication(id: id, configuration: configuration, state: .starting))
        selectedPublication = id
        return .publish(id: id, configuration)
    }

    /// Stops publication `id` if it runs, starts it again if not.
    mutating func toggle(_ id: Int) -> ExploreAction? {
        guard let publication = publications.first(where: { $0.id == id }) else { return nil }
        if publication.isActive {
            update(id) { $0.state = .stopping }
            return .stop(id: id)
        }
        update(id) { $0.state = .starting }
        return .publish(id: id, publication.configuration)
    }

    /// Withdraws publication `id` and takes it off the list.
    mutating func remove(_ id: Int) -> ExploreAction? {
        guard let index = publications.firstIndex(where: { $0.id == id }) else { return nil }
        publications.remove(at: index)
        selectedPublication = publications.indices.contains(index) ? publications[index].id : publications.last?.id
        return .stop(id: id)
    }

    var nextDemoNumber: Int { nextPublicationID }
}
