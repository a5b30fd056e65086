import Ciao

func resolveOnce() async throws {
    let service = Service(name: "Hall printer", type: try .tcp("http"))
    do {
        let resolved = try await CiaoResolver.resolve(service, timeout: .seconds(3))
        print(resolved.hostName, resolved.port, resolved.addresses, resolved.txtRecord[text: "state"] ?? "-")
    } catch CiaoError.timedOut {
        print("no answer within 3 s")
    }

    for try await type in ServiceTypeSession().types {
        print(type, type.isRFC6335 ? "" : "(longer than RFC 6335 allows)")
    }
}
