import Ciao

func browseOnEthernetOverIPv4() async throws -> DiscoverySession {
    // Before the first server, browser or resolver of the process starts.
    try NetworkScope.use(NetworkScope(interfaces: ["eth0"], families: [.ipv4]))

    let session = try await CiaoBrowser().browse(type: try .tcp("http"))
    for failure in NetworkScope.membershipFailures {
        print("not listening on", failure.interface, failure.family, ":", failure.reason)
    }
    return session
}
