#if canImport(CiaoNetService)
import CiaoNetService
#endif
import Foundation

final class Announcer: NetServiceDelegate {
    func netServiceDidPublish(_ sender: NetService) {
        print("published as", sender.name)
    }

    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        print("not published:", errorDict[NetService.errorCode]?.intValue ?? 0)
    }
}

func announce(with announcer: Announcer) -> NetService {
    let service = NetService(domain: "local.", type: "_chat._tcp.", name: "Kitchen", port: 7000)
    service.delegate = announcer  // held weakly: keep the announcer alive
    service.setTXTRecord(NetService.data(fromTXTRecord: ["v": Data("1".utf8)]))
    service.publish()
    return service  // the run loop (RunLoop.main.run()) delivers the callbacks
}
