/// Per-interface state: its addresses, its cache, the answers waiting to go out on it, when our
/// records were last multicast on it and when its new queries first ask.
struct InterfaceState {
    var interface: NetworkInterface
    var cache: RecordCache
    var responses = ResponseQueue()
    var multicastLog = MulticastLog()
    /// The first-query time last chosen here, which queries started in the next moments share
    /// (``MDNSEngine/firstQueryTime(on:at:)``).
    var sharedFirstQueryTime: Instant?

    init(interface: NetworkInterface, cacheCapacity: Int) {
        self.interface = interface
        cache = RecordCache(capacity: cacheCapacity)
    }
}
