/// Why a TSIG-signed exchange failed (RFC 8945 §5): what the server said of our signature, or
/// what we found wrong with its.
public enum TSIGError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key file or secret could not be read.
    case badKeyFile(String)
    /// The key uses an algorithm other than hmac-sha256.
    case unsupportedAlgorithm(String)
    /// The server does not know the key, or its algorithm (BADKEY, RCODE 17); or its reply is
    /// signed with another key.
    case badKey(DomainName)
    /// The MAC does not match (BADSIG, RCODE 16): the secret differs, or the message was changed.
    case badSignature
    /// The signing times differ by more than the fudge (BADTIME, RCODE 18); `signed` is the time
    /// in the message, `now` the verifier's, seconds since 1970.
    case badTime(signed: UInt64, now: UInt64)
    /// A reply that should be signed is not.
    case unsigned
    /// The TSIG record is malformed or not the last record.
    case malformed(String)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .badKeyFile(let reason): "cannot read the TSIG key: \(reason)"
        case .unsupportedAlgorithm(let name):
            "the TSIG algorithm \(name) is not supported: make the key with `tsig-keygen -a hmac-sha256`"
        case .badKey(let name):
            "the server does not know the TSIG key \(name) (BADKEY): check the key's name and the server's key list"
        case .badSignature:
            "the TSIG signature does not match (BADSIG): the secret differs from the server's"
        case .badTime(let signed, let now):
            "the clocks differ by \(signed > now ? signed - now : now - signed) s, more than the TSIG fudge (BADTIME): "
                + "set the time of this host or the server"
        case .unsigned: "the server's reply is not signed with the TSIG key"
        case .malformed(let reason): "malformed TSIG record: \(reason)"
        }
    }
}
