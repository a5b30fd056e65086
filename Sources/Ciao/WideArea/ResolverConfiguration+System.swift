import CiaoUnicastDNS

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ResolverConfiguration {
    /// The system resolver's settings, read from `path` (`resolv.conf(5)`). A missing file gives a
    /// configuration without servers, whose queries then fail saying so; a file that exists but
    /// cannot be read throws `invalidConfiguration`.
    package static func system(path: String = "/etc/resolv.conf") throws(CiaoError) -> ResolverConfiguration {
        guard FileManager.default.fileExists(atPath: path) else { return ResolverConfiguration(parsing: "") }
        do {
            return ResolverConfiguration(parsing: try String(contentsOfFile: path, encoding: .utf8))
        } catch {
            throw .invalidConfiguration("cannot read \(path) for the DNS servers of a unicast domain: \(error)")
        }
    }
}
