import Ciao

func publishBothWays() async throws {
    // External port: your own server already listens on 8080.
    let web = CiaoServer()
    _ = try await web.start(
        PublicationConfiguration(type: try .tcp("http"), name: "Status page", port: 8080, mode: .externalPort))

    // Listener: Ciao holds an ephemeral UDP port for the service and advertises it.
    let placeholder = CiaoServer()
    let published = try await placeholder.start(PublicationConfiguration(type: try .udp("ciao-demo")))
    print(published.service.name, "on port", published.port)  // the host name, a port the kernel chose

    await placeholder.stop()
    await web.stop()
}
