import Ciao

func servicesSeenWithinTenSeconds() async throws -> Set<Service> {
    let session = try await CiaoBrowser().browse(type: try .tcp("http"), automaticallyResolve: false)
    let reader = Task {
        for try await event in session.events { print(event) }  // ends after .stopped
    }
    try await Task.sleep(for: .seconds(10))
    let seen = await session.services
    await session.stop()
    try await reader.value
    return seen
}
