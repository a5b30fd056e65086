#if canImport(Glibc)
import Glibc
#endif

/// Which network namespace this process is in, for test tools that must never touch the
/// machine's real interfaces.
package enum NetworkNamespace {
    /// True when this process runs in a namespace made with `ip netns add` (bind-mounted under
    /// /run/netns), so never on the machine's own interfaces. PID 1's namespace cannot serve as
    /// the reference: in a sandbox it may be unreadable.
    package static var isPrivate: Bool {
        var own = stat()
        guard stat("/proc/self/ns/net", &own) == 0 else { return false }
        return namedNamespaces.contains { name in
            var named = stat()
            return stat("/run/netns/\(name)", &named) == 0 && named.st_dev == own.st_dev && named.st_ino == own.st_ino
        }
    }

    /// The entries of /run/netns; none if it cannot be read.
    private static var namedNamespaces: [String] {
        guard let directory = opendir("/run/netns") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
