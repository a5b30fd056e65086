import Ciao

func watchPrinters() async throws {
    let session = try await CiaoBrowser().browse(type: try .tcp("ipp"), resolutionTimeout: .seconds(5))
    for try await event in session.events {
        switch event {
        case .started: print("browsing")
        case .found(let service): print("found", service.name, "on interface", service.interfaceIndex)
        case .resolved(let resolved): print(resolved.service.name, "at", resolved.hostName, resolved.port)
        case .resolutionFailed(let service, let error): print("cannot resolve", service.name, error)
        case .removed(let service): print("gone", service.name)
        case .stopped: print("stopped")
        }
    }
}
