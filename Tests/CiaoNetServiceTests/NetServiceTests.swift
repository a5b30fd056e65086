import Ciao
import Foundation
import Testing

@testable import CiaoNetService

/// What NetService does without the network: TXT conversions, addresses, error dictionaries, and
/// the argument checks that fail before any network work.
@Suite struct NetServiceTests {
    @Test func txtDictionaryRoundTrips() {
        let dictionary = ["path": Data("/x".utf8), "empty": Data(), "bin": Data([0, 0xFF])]
        let data = NetService.data(fromTXTRecord: dictionary)
        #expect(NetService.dictionary(fromTXTRecord: data) == dictionary)
    }

    /// Keys keep the spelling they were written with, both ways, as on Apple platforms: a peer's
    /// `GameName=Chess` is `GameName`, and a published `GameName` goes out as such.
    @Test func txtKeysKeepTheirSpelling() {
        let peer = Data([14] + Array("GameName=Chess".utf8) + [10] + Array("Company=Zy".utf8))
        #expect(NetService.dictionary(fromTXTRecord: peer) == ["GameName": Data("Chess".utf8), "Company": Data("Zy".utf8)])
        let data = NetService.data(fromTXTRecord: ["GameName": Data("Go".utf8), "txtvers": Data("1".utf8)])
        #expect(data == Data([9] + Array("txtvers=1".utf8) + [11] + Array("GameName=Go".utf8)))
    }

    @Test func flagsReadAsEmptyDataAndBadDataAsNothing() {
        // "flag" (no "="), then "k=v".
        let data = Data([4] + Array("flag".utf8) + [3] + Array("k=v".utf8))
        #expect(NetService.dictionary(fromTXTRecord: data) == ["flag": Data(), "k": Data("v".utf8)])
        #expect(NetService.dictionary(fromTXTRecord: Data([9, 1, 2])).isEmpty)
    }

    @Test func invalidTXTDictionaryGivesEmptyData() {
        #expect(NetService.data(fromTXTRecord: ["bad=key": Data()]).isEmpty)
        #expect(NetService.data(fromTXTRecord: ["k": Data(count: 300)]).isEmpty)
    }

    @Test func setTXTRecordRejectsMalformedData() {
        let service = NetService(domain: "local.", type: "_http._tcp.", name: "Web", port: 80)
        #expect(!service.setTXTRecord(Data([9, 1, 2])))
        #expect(service.txtRecordData() == nil)
        #expect(service.setTXTRecord(Data([3] + Array("a=b".utf8))))
        #expect(service.txtRecordData() == Data([3] + Array("a=b".utf8)))
    }

    @Test func addressesAreSocketAddressStructures() throws {
        let v4 = try #require(SocketAddressData.make("198.18.0.1", port: 8080))
        #expect(v4.count == MemoryLayout<sockaddr_in>.size)
        v4.withUnsafeBytes { raw in
            let address = raw.load(as: sockaddr_in.self)
            #expect(Int32(address.sin_family) == AF_INET)
            #expect(UInt16(bigEndian: address.sin_port) == 8080)
            #expect(address.sin_addr.s_addr == UInt32(bigEndian: 0xC612_0001))
        }
        let v6 = try #require(SocketAddressData.make("fe80::1%lo", port: 1))
        #expect(v6.count == MemoryLayout<sockaddr_in6>.size)
        v6.withUnsafeBytes { raw in
            let address = raw.load(as: sockaddr_in6.self)
            #expect(Int32(address.sin6_family) == AF_INET6)
            #expect(address.sin6_scope_id == if_nametoindex("lo"))
        }
        #expect(SocketAddressData.make("not an address", port: 1) == nil)
    }

    @Test func errorDictionariesCarryNetServiceCodes() {
        let dictionary = NetService.errorDictionary(.collisionError)
        #expect(dictionary[NetService.errorCode] == NSNumber(value: -72001))
        #expect(dictionary[NetService.errorDomain] != nil)
        #expect(NetService.code(for: CiaoErrorSamples.conflict) == .collisionError)
        #expect(NetService.code(for: CiaoErrorSamples.timeout) == .timeoutError)
        #expect(NetService.code(for: CancellationError()) == .cancelledError)
    }

    @Test func publishingWithABadTypeOrPortFailsAtOnce() {
        let delegate = RecordingDelegate()
        for (type, port) in [("http", Int32(80)), ("_http._tcp.", 0), ("_http._tcp.", 70000)] {
            let service = NetService(domain: "local.", type: type, name: "Web", port: port)
            service.delegate = delegate
            service.publish()
        }
        #expect(delegate.calls == Array(repeating: "didNotPublish -72004", count: 3))
    }

    @Test func resolvingWithABadTypeOrTimeoutFailsAtOnce() {
        let delegate = RecordingDelegate()
        let badType = NetService(domain: "local.", type: "web", name: "Web")
        badType.delegate = delegate
        badType.resolve(withTimeout: 5)
        let badTimeout = NetService(domain: "local.", type: "_http._tcp.", name: "Web")
        badTimeout.delegate = delegate
        badTimeout.resolve(withTimeout: 0)
        #expect(delegate.calls == ["didNotResolve -72004", "didNotResolve -72004"])
    }

    @Test func browsingABadTypeOrDomainFailsAtOnce() {
        let delegate = RecordingBrowserDelegate()
        for (type, domain) in [("http", "local."), ("_http._tcp.", "example.com.")] {
            let browser = NetServiceBrowser()
            browser.delegate = delegate
            browser.searchForServices(ofType: type, inDomain: domain)
        }
        #expect(delegate.calls == ["didNotSearch -72004", "didNotSearch -72004"])
    }
}

private enum CiaoErrorSamples {
    static let conflict = CiaoError.dnsService(CiaoError.Code.nameConflict)
    static let timeout = CiaoError.timedOut
}

private final class RecordingDelegate: NetServiceDelegate {
    var calls: [String] = []

    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {
        calls.append("didNotPublish \(errorDict[NetService.errorCode] ?? 0)")
    }

    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {
        calls.append("didNotResolve \(errorDict[NetService.errorCode] ?? 0)")
    }
}

private final class RecordingBrowserDelegate: NetServiceBrowserDelegate {
    var calls: [String] = []

    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {
        calls.append("didNotSearch \(errorDict[NetService.errorCode] ?? 0)")
    }
}
