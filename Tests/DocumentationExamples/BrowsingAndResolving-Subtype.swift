import Ciao

func browsePrinters() async throws -> DiscoverySession {
    // _printer._sub._http._tcp.local.: web servers that are printers; the services found are of _http._tcp.
    try await CiaoBrowser().browse(type: try .tcp("http"), subtype: "_printer")
}
