import Ciao

func publishBrowseAndResolve() async throws {
    let server = CiaoServer()
    let published = try await server.start(
        PublicationConfiguration(type: try .tcp("chat"), name: "Kitchen", port: 7000, mode: .externalPort))
    print("published as", published.service.name)

    let session = try await CiaoBrowser().browse(type: try .tcp("chat"))
    for try await event in session.events {
        guard case .resolved(let found) = event else { continue }
        print(found.service.name, found.hostName, found.port, found.addresses, found.txtRecord)
        break
    }
    await session.stop()

    let kitchen = try await CiaoResolver.resolve(Service(name: published.service.name, type: try .tcp("chat")))
    print(kitchen.hostName, kitchen.port)
    await server.stop()
}
