#if canImport(Glibc)
import Glibc
#endif
import CCiaoShim

/// The memory one recvmmsg(2) call fills: per slot a datagram buffer, a control-message buffer, a
/// source address, and the iovec and message header that point at them. Allocated once per socket
/// and reused for every read; it belongs to that socket's thread.
struct ReceiveSlots: ~Copyable {
    /// How many datagrams one read can return.
    let count: Int
    /// The `struct mmsghdr` array handed to recvmmsg(2).
    let messages: UnsafeMutablePointer<ciao_mmsghdr>
    private let datagramSize: Int
    private let controlSize: Int
    private let datagramBuffers: UnsafeMutableRawBufferPointer
    private let controls: UnsafeMutableRawBufferPointer
    private let sources: UnsafeMutablePointer<sockaddr_storage>
    private let vectors: UnsafeMutablePointer<iovec>

    init(count: Int, datagramSize: Int, controlSize: Int) {
        // Every slot's control buffer must start cmsghdr-aligned, as the first one does.
        precondition(controlSize % MemoryLayout<cmsghdr>.alignment == 0, "control buffers must stay aligned")
        self.count = count
        self.datagramSize = datagramSize
        self.controlSize = controlSize
        datagramBuffers = .allocate(byteCount: count * datagramSize, alignment: 16)
        controls = .allocate(byteCount: count * controlSize, alignment: MemoryLayout<cmsghdr>.alignment)
        sources = .allocate(capacity: count)
        vectors = .allocate(capacity: count)
        messages = .allocate(capacity: count)
        for slot in 0..<count {
            vectors[slot] = iovec(iov_base: datagramBuffers.baseAddress! + slot * datagramSize, iov_len: datagramSize)
            messages[slot] = ciao_mmsghdr()
            messages[slot].msg_hdr.msg_name = UnsafeMutableRawPointer(sources + slot)
            messages[slot].msg_hdr.msg_iov = vectors + slot
            messages[slot].msg_hdr.msg_iovlen = 1
            messages[slot].msg_hdr.msg_control = controls.baseAddress! + slot * controlSize
        }
        reset()
    }

    deinit {
        datagramBuffers.deallocate()
        controls.deallocate()
        sources.deallocate()
        vectors.deallocate()
        messages.deallocate()
    }

    /// Restores the lengths and flags the kernel overwrote in the last read.
    func reset() {
        for slot in 0..<count {
            messages[slot].msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
            messages[slot].msg_hdr.msg_controllen = controlSize
            messages[slot].msg_hdr.msg_flags = 0
            messages[slot].msg_len = 0
        }
    }

    /// The bytes the last read put in `slot`.
    func payload(_ slot: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(
            start: datagramBuffers.baseAddress! + slot * datagramSize, count: Int(messages[slot].msg_len))
    }

    /// The source address the last read put in `slot`.
    func source(_ slot: Int) -> UnsafePointer<sockaddr_storage> {
        UnsafePointer(sources + slot)
    }
}
