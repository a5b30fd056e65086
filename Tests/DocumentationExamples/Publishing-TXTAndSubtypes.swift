import Ciao

func publishPrinter() async throws {
    let server = CiaoServer()
    _ = try await server.start(
        PublicationConfiguration(
            type: try .tcp("http"), name: "Hall printer", port: 631, mode: .externalPort,
            txtRecord: try TXTRecord(orderedStrings: ["txtvers": "1", "state": "idle"]),
            subtypes: ["_printer"]))

    // Browsers see the new record; the name, port and subtypes stay.
    try await server.updateTXT(try TXTRecord(orderedStrings: ["txtvers": "1", "state": "printing"]))

    await server.stop()  // goodbyes are sent before it returns
}
