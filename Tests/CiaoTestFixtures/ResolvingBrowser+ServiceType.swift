import CiaoSimulation

extension ResolvingBrowser {
    /// A browser of ``Names/serviceType`` on `host`.
    public init(host: SimulatedNetwork.HostID, resolves: Bool = true) {
        self.init(host: host, serviceType: Names.serviceType, resolves: resolves)
    }
}
