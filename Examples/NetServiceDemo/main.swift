// NetServiceDemo: Bonjour code as it is written on Apple platforms, against Foundation's
// NetService / NetServiceBrowser and their delegates, running on Linux through CiaoNetService.
// The only Linux-specific line is the import.
//
//   NetServiceDemo publish NAME PORT [KEY=VALUE...]   publish until SIGINT/SIGTERM, then stop
//   NetServiceDemo browse [SECONDS]                     find, resolve, monitor and print services, then stop
//
// NETSERVICE_DEMO_TYPE sets the service type (default _ciaodemo._tcp.).
//
// Every delegate callback prints one line ("didPublish Name", "didFind Name moreComing=false", ...)
// so that a test can check their order. The publisher updates its TXT record 2.5 s after
// publishing; the browser monitors what it resolved and reports the update.
#if canImport(CiaoNetService)
import CiaoNetService
#endif
import Foundation

/// The type published and browsed; NETSERVICE_DEMO_TYPE chooses another, such as a game lobby's
/// `_CinchGamingService._tcp.` (longer than RFC 6335's 15 characters, as Apple allows).
let serviceType = ProcessInfo.processInfo.environment["NETSERVICE_DEMO_TYPE"] ?? "_ciaodemo._tcp."

/// One line on standard output, unbuffered, so that a test sees it at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A TXT record as sorted `key=value` pairs joined by commas.
func describe(txt data: Data) -> String {
    NetService.dictionary(fromTXTRecord: data).map { "\($0.key)=\(String(decoding: $0.value, as: UTF8.self))" }
        .sorted().joined(separator: ",")
}

/// Publishes one service and reports what its delegate hears.
final class Publisher: NSObject, NetServiceDelegate {
    let service: NetService

    init(name: String, port: Int32, txt: [String: Data]) {
        service = NetService(domain: "local.", type: serviceType, name: name, port: port)
        super.init()
        service.delegate = self
        service.setTXTRecord(NetService.data(fromTXTRecord: txt))
    }

    func start() { service.publish() }

    func netServiceWillPublish(_ sender: NetService) { say("willPublish \(sender.name)") }
    func netServiceDidPublish(_ sender: NetService) {
        say("didPublish \(sender.name)")
        // A live TXT update, which browsers that monitor the service see.
        _ = Timer.scheduledTimer(withTimeInterval: 2.5, repeats: false) { _ in
            MainActor.assumeIsolated { publisher?.updateTXT() }
        }
    }

    func updateTXT() {
        var txt = NetService.dictionary(fromTXTRecord: service.txtRecordData() ?? Data())
        txt["updated"] = Data("yes".utf8)
        service.setTXTRecord(NetService.data(fromTXTRecord: txt))
        say("setTXTRecord \(service.name)")
    }
    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        say("didNotPublish \(errorDict[NetService.errorCode] ?? 0)")
        exit(1)
    }
    func netServiceDidStop(_ sender: NetService) {
        say("didStop \(sender.name)")
        exit(0)
    }
}

/// Browses, resolves each service found, prints its TXT dictionary, and stops after a while.
final class Browser: NSObject, NetServiceBrowserDelegate, NetServiceDelegate {
    let browser = NetServiceBrowser()
    var resolving: [NetService] = []

    override init() {
        super.init()
        browser.delegate = self
    }

    func start() { browser.searchForServices(ofType: serviceType, inDomain: "local.") }

    func netServiceBrowserWillSearch(_ browser: NetServiceBrowser) { say("willSearch") }
    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {
        say("didFind \(service.name) moreComing=\(moreComing)")
        service.delegate = self
        resolving.append(service)
        service.resolve(withTimeout: 5)
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool) {
        say("didRemove \(service.name) moreComing=\(moreComing)")
    }
    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        say("didNotSearch \(errorDict[NetService.errorCode] ?? 0)")
        exit(1)
    }
    func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) {
        say("didStopSearch")
        exit(0)
    }

    func netServiceWillResolve(_ sender: NetService) { say("willResolve \(sender.name)") }
    func netServiceDidResolveAddress(_ sender: NetService) {
        let txt = describe(txt: sender.txtRecordData() ?? Data())
        let families = (sender.addresses ?? []).map { $0.count == MemoryLayout<sockaddr_in>.size ? "IPv4" : "IPv6" }
        say(
            "didResolve \(sender.name) host=\(sender.hostName ?? "?") port=\(sender.port) txt=\(txt) addresses=\(families.joined(separator: "+"))"
        )
        sender.startMonitoring()
    }
    func netService(_ sender: NetService, didUpdateTXTRecord data: Data) {
        let txt = describe(txt: data)
        say("didUpdateTXTRecord \(sender.name) txt=\(txt)")
    }
    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {
        say("didNotResolve \(sender.name) \(errorDict[NetService.errorCode] ?? 0)")
    }
}

var arguments = CommandLine.arguments.dropFirst()
var publisher: Publisher?
var browser: Browser?
var signalSources: [any DispatchSourceSignal] = []
switch arguments.popFirst() {
case "publish":
    guard let name = arguments.popFirst(), let port = arguments.popFirst().flatMap(Int32.init) else {
        say("usage: NetServiceDemo publish NAME PORT [KEY=VALUE...]")
        exit(2)
    }
    var txt: [String: Data] = [:]
    for entry in arguments {
        let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
        txt[parts[0]] = Data((parts.count > 1 ? parts[1] : "").utf8)
    }
    publisher = Publisher(name: name, port: port, txt: txt)
    publisher?.start()
    // Stop on SIGINT or SIGTERM: didStop, then exit.
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler { MainActor.assumeIsolated { publisher?.service.stop() } }
        source.resume()
        signalSources.append(source)
    }
case "browse":
    let seconds = arguments.popFirst().flatMap(Double.init) ?? 5
    browser = Browser()
    browser?.start()
    _ = Timer.scheduledTimer(withTimeInterval: seconds, repeats: false) { _ in
        MainActor.assumeIsolated { browser?.browser.stop() }
    }
default:
    say("usage: NetServiceDemo publish NAME PORT [KEY=VALUE...] | browse [SECONDS]")
    exit(2)
}
RunLoop.main.run()
