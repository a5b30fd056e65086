import CiaoTransport

/// A port held for a listener-mode publication while it runs (``PublicationConfiguration/Mode/listener``):
/// released when the last reference goes.
protocol ListenerPort: AnyObject, Sendable {
    var port: UInt16 { get }
}

extension PortReservation: ListenerPort {}

extension BackendSelection {
    /// An ephemeral port of this host, TCP or UDP as `type` says, bound but never accepting, so
    /// that connection attempts are refused.
    @Sendable static func reserveSystemPort(for type: ServiceType) throws(CiaoError) -> any ListenerPort {
        do {
            return try PortReservation(type.transport == .tcp ? .tcp : .udp)
        } catch {
            throw .network("cannot open a listener for \(type): \(error)")
        }
    }
}
