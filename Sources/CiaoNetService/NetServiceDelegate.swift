#if !canImport(Darwin)
import Foundation

/// Foundation's `NetServiceDelegate`: every method is optional (default: do nothing).
public protocol NetServiceDelegate: AnyObject {
    func netServiceWillPublish(_ sender: NetService)
    func netServiceDidPublish(_ sender: NetService)
    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber])
    func netServiceWillResolve(_ sender: NetService)
    func netServiceDidResolveAddress(_ sender: NetService)
    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber])
    func netServiceDidStop(_ sender: NetService)
    func netService(_ sender: NetService, didUpdateTXTRecord data: Data)
}

extension NetServiceDelegate {
    public func netServiceWillPublish(_ sender: NetService) {}
    public func netServiceDidPublish(_ sender: NetService) {}
    public func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {}
    public func netServiceWillResolve(_ sender: NetService) {}
    public func netServiceDidResolveAddress(_ sender: NetService) {}
    public func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {}
    public func netServiceDidStop(_ sender: NetService) {}
    public func netService(_ sender: NetService, didUpdateTXTRecord data: Data) {}
}

/// Foundation's `NetServiceBrowserDelegate`: every method is optional (default: do nothing).
public protocol NetServiceBrowserDelegate: AnyObject {
    func netServiceBrowserWillSearch(_ browser: NetServiceBrowser)
    func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser)
    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber])
    func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool)
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool)
    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool)
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool)
}

extension NetServiceBrowserDelegate {
    public func netServiceBrowserWillSearch(_ browser: NetServiceBrowser) {}
    public func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) {}
    public func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {}
    public func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool) {}
    public func netServiceBrowser(_ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool) {}
    public func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {}
    public func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool) {}
}
#endif
