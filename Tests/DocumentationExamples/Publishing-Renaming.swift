import Ciao

func publishUnderFixedName() async throws {
    let server = CiaoServer()
    let events = Task {
        for await event in server.events {
            switch event {
            case .started(let published): print("published as", published.service.name)
            case .failed(let error): print("publication ended:", error)
            case .stopped: print("withdrawn")
            }
        }
    }
    do {
        _ = try await server.start(
            PublicationConfiguration(
                type: try .tcp("chat"), name: "Kitchen", port: 7000, mode: .externalPort, allowsRenaming: false))
    } catch CiaoError.dnsService(CiaoError.Code.nameConflict) {
        print("another host already publishes Kitchen")
    }
    await server.stop()
    events.cancel()
}
