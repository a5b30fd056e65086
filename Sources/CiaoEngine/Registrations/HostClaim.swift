/// Who publishes the host name that this engine's services name in their SRV records.
///
/// Several responders may run on one host (RFC 6762 §15): avahi-daemon, mDNSResponder, other
/// processes using Ciao. The engine claims `<host>.local.` only while it publishes a service on
/// this host, and not at all while another responder on this host answers for that name with
/// this host's addresses: its services then point at that responder's name, and the engine sends
/// no probe, announcement or goodbye for it.
public enum HostClaim: Hashable, Sendable {
    /// No service on this host is registered: nothing is sent for the host name.
    case unneeded
    /// The engine owns the name: the host's ``Registration/State`` says where probing and
    /// announcing are (§8).
    case owned
    /// Another responder on this host answers for the name with this host's addresses. The engine
    /// asks again at `confirmAt` and claims the name itself if no answer has renewed it by
    /// `expiresAt`, when the records it heard would expire (§10).
    case heldByAnother(confirmAt: Instant, expiresAt: Instant)
}
