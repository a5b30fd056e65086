#if canImport(Glibc)
import Glibc
#endif
import CCiaoShim

/// Tells the runtime when links or addresses change, so it can rescan with `InterfaceScanner`
/// (RFC 6762 §8.3 and §10.2: announce again, or say goodbye, when the network changes).
///
/// A non-blocking NETLINK_ROUTE socket subscribed to RTMGRP_LINK, RTMGRP_IPV4_IFADDR and
/// RTMGRP_IPV6_IFADDR (rtnetlink(7)). It only says *that* something changed; the scanner says what
/// the interfaces are now, which is simpler and cannot drift.
///
/// Not `Sendable`, like `MulticastSocket`: it belongs to the thread that polls it.
public final class NetlinkMonitor {
    /// The socket's descriptor, for poll(2); -1 once closed.
    public private(set) var fileDescriptor: Int32

    private let buffer: UnsafeMutableRawBufferPointer

    public init() throws(TransportError) {
        let type = Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_NETLINK, type, NETLINK_ROUTE)
        guard fd >= 0 else { throw .lastError("open a netlink route socket") }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = UInt32(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard result == 0 else {
            let error = TransportError.lastError("subscribe to link and address changes (netlink bind)")
            SystemCall.close(fd)
            throw error
        }
        fileDescriptor = fd
        // Netlink messages are page-sized at most by default; 32 KiB reads several per call.
        buffer = .allocate(byteCount: 32 << 10, alignment: 16)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// Closes the descriptor; later calls do nothing.
    public func close() {
        guard fileDescriptor >= 0 else { return }
        SystemCall.close(fileDescriptor)
        fileDescriptor = -1
    }

    /// Reads every pending message and returns true when any of them was a link or address change.
    ///
    /// ENOBUFS means the kernel dropped messages because the socket queue overflowed: changes may
    /// have been lost, so that also returns true ("rescan"). So does any unexpected read error.
    public func drainChanges() -> Bool {
        guard fileDescriptor >= 0 else { return false }
        var changed = false
        while true {
            let count = SystemCall.retryingInterrupts { recv(fileDescriptor, buffer.baseAddress, buffer.count, 0) }
            if count < 0 {
                switch errno {
                case EAGAIN, EWOULDBLOCK: return changed
                case ENOBUFS:
                    changed = true
                    continue  // overrun: state unknown, keep draining
                default: return true
                }
            }
            if count == 0 { return changed }
            if Self.reportsChange(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { changed = true }
        }
    }

    /// True when `bytes`, one read from the socket, hold a link or address message (RTM_NEWLINK,
    /// RTM_DELLINK, RTM_NEWADDR, RTM_DELADDR), an error message, or a message cut short.
    static func reportsChange(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let summary = ciao_netlink_summarize(bytes.baseAddress, bytes.count)
        return summary.changes > 0 || summary.errors > 0 || summary.malformed != 0
    }
}

@available(*, unavailable, message: "a NetlinkMonitor belongs to the one thread that polls it")
extension NetlinkMonitor: Sendable {}
