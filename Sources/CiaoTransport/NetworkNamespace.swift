import Foundation

/// Which network namespace this process is in, for test tools that must never touch the
/// machine's real interfaces (DESIGN.md §6).
package enum NetworkNamespace {
    /// True when this process's network namespace differs from that of PID 1, i.e. it runs in
    /// a namespace someone created (with `ip netns`), not on the machine's own interfaces.
    package static var isPrivate: Bool {
        guard let own = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net"),
            let initial = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/1/ns/net")
        else { return false }
        return own != initial
    }
}
