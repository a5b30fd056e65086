import CiaoWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The TSIG key (hmac-sha256, RFC 8945) that signs the DNS UPDATEs of a wide-area registration:
/// read from a file in the format BIND's `tsig-keygen` writes, or given by name and secret. Its
/// description names the key and never shows the secret.
public struct RegistrationKey: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    let tsigKey: TSIGKey

    /// Reads the first key of the file at `path` (`key "NAME" { algorithm hmac-sha256; secret "…"; };`).
    /// Throws `invalidConfiguration` saying what is wrong with the file, never showing its secret.
    public init(contentsOfFile path: String) throws(CiaoError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .invalidConfiguration("cannot read the key file \(path): \(error)")
        }
        do {
            tsigKey = try TSIGKey(bindKeyFile: text)
        } catch {
            throw .invalidConfiguration("\(path): \(error)")
        }
    }

    /// A key named `name` (as the server's configuration names it) with the base64 `secret`.
    public init(name: String, base64Secret secret: String) throws(CiaoError) {
        do {
            tsigKey = try TSIGKey(bindKeyFile: "key \"\(name)\" { algorithm hmac-sha256; secret \"\(secret)\"; };")
        } catch {
            throw .invalidConfiguration("the key \(name): \(error)")
        }
    }

    /// The key's name.
    public var name: String { tsigKey.name.description }

    /// Names the key, never its secret.
    public var description: String { tsigKey.description }

    /// The key's name alone.
    public var customMirror: Mirror { Mirror(self, children: ["name": name]) }
}
