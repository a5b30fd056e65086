#if !canImport(Darwin)
import Foundation

/// Foundation's `NetServiceDelegate`: every method is optional (default: do nothing).
public protocol NetServiceDelegate: AnyObject {
    /// Publishing is starting: the name is about to be probed on the network (RFC 6762 §8.1).
    func netServiceWillPublish(_ sender: NetService)
    /// The service is published under `sender.name`, which a conflict may have changed.
    func netServiceDidPublish(_ sender: NetService)
    /// Publishing failed; `errorDict` holds the raw value of a ``NetService/ErrorCode`` under ``NetService/errorCode``.
    func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber])
    /// Resolving has begun.
    func netServiceWillResolve(_ sender: NetService)
    /// The service's host name, port, addresses and TXT record are known. On Linux it is called once
    /// per resolution, with every address known by then.
    func netServiceDidResolveAddress(_ sender: NetService)
    /// Resolving failed, within its timeout or before it began; `errorDict` holds an
    /// ``NetService/ErrorCode`` under ``NetService/errorCode``.
    func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber])
    /// Publishing or resolving has ended: after ``NetService/stop()``, and after every resolution,
    /// successful or not.
    func netServiceDidStop(_ sender: NetService)
    /// The TXT record of a monitored service changed (see ``NetService/startMonitoring()``); `data` is
    /// the new record.
    func netService(_ sender: NetService, didUpdateTXTRecord data: Data)
}

extension NetServiceDelegate {
    /// Does nothing.
    public func netServiceWillPublish(_ sender: NetService) {}
    /// Does nothing.
    public func netServiceDidPublish(_ sender: NetService) {}
    /// Does nothing.
    public func netService(_ sender: NetService, didNotPublish errorDict: [String: NSNumber]) {}
    /// Does nothing.
    public func netServiceWillResolve(_ sender: NetService) {}
    /// Does nothing.
    public func netServiceDidResolveAddress(_ sender: NetService) {}
    /// Does nothing.
    public func netService(_ sender: NetService, didNotResolve errorDict: [String: NSNumber]) {}
    /// Does nothing.
    public func netServiceDidStop(_ sender: NetService) {}
    /// Does nothing.
    public func netService(_ sender: NetService, didUpdateTXTRecord data: Data) {}
}

/// Foundation's `NetServiceBrowserDelegate`: every method is optional (default: do nothing).
public protocol NetServiceBrowserDelegate: AnyObject {
    /// A search for services or domains has begun.
    func netServiceBrowserWillSearch(_ browser: NetServiceBrowser)
    /// The search has ended after ``NetServiceBrowser/stop()``.
    func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser)
    /// The search could not run; `errorDict` holds the raw value of a ``NetService/ErrorCode`` under
    /// ``NetService/errorCode``.
    func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber])
    /// A domain was found; on Linux only `local.`, with `moreComing` false.
    func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool)
    /// A domain went away. Never called on Linux: `local.` does not go away.
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool)
    /// A service appeared; `moreComing` is true while more of the same batch follow. Resolve `service`
    /// to reach it.
    func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool)
    /// A service found earlier went away; `service` is the object `didFind` passed. `moreComing` as for
    /// `didFind`.
    func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool)
}

extension NetServiceBrowserDelegate {
    /// Does nothing.
    public func netServiceBrowserWillSearch(_ browser: NetServiceBrowser) {}
    /// Does nothing.
    public func netServiceBrowserDidStopSearch(_ browser: NetServiceBrowser) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didNotSearch errorDict: [String: NSNumber]) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didFindDomain domainString: String, moreComing: Bool) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didRemoveDomain domainString: String, moreComing: Bool)
    {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didFind service: NetService, moreComing: Bool) {}
    /// Does nothing.
    public func netServiceBrowser(_ browser: NetServiceBrowser, didRemove service: NetService, moreComing: Bool) {}
}
#endif
