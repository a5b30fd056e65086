/// A TSIG key (RFC 8945 §4.2): its name and its hmac-sha256 secret. Its description and mirror
/// name the key and never show the secret; two keys are equal when name and secret are.
public struct TSIGKey: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The algorithm's name on the wire (RFC 8945 §6).
    public static let hmacSHA256 = try! DomainName(labels: ["hmac-sha256"])

    /// The key's name, as the server's configuration names it.
    public let name: DomainName
    let secret: [UInt8]

    /// A key of `name` with `secret`; it must not be empty.
    public init(name: DomainName, secret: [UInt8]) throws(TSIGError) {
        guard !secret.isEmpty else { throw .badKeyFile("the secret is empty") }
        self.name = name
        self.secret = secret
    }

    /// Reads the first key of a file in BIND's format, as `tsig-keygen` writes it:
    /// `key "NAME" { algorithm hmac-sha256; secret "BASE64"; };`.
    public init(bindKeyFile text: String) throws(TSIGError) {
        let tokens = Self.tokens(text)
        guard let keyIndex = tokens.firstIndex(of: "key"), keyIndex + 1 < tokens.count else {
            throw .badKeyFile("no `key \"NAME\" { … };` statement")
        }
        let nameText = tokens[keyIndex + 1]
        func value(of field: String) -> String? {
            tokens[(keyIndex + 2)...].firstIndex(of: field).flatMap { $0 + 1 < tokens.count ? tokens[$0 + 1] : nil }
        }
        guard let algorithm = value(of: "algorithm") else { throw .badKeyFile("the key has no algorithm") }
        guard algorithm.lowercased() == "hmac-sha256" else { throw .unsupportedAlgorithm(algorithm) }
        guard let encoded = value(of: "secret") else { throw .badKeyFile("the key has no secret") }
        guard let secret = Base64.decode(encoded) else { throw .badKeyFile("the secret is not base64") }
        let name: DomainName
        do {
            name = try DomainName(parsing: nameText)
        } catch {
            throw .badKeyFile("the key name \"\(nameText)\" is not a domain name: \(error)")
        }
        try self.init(name: name, secret: secret)
    }

    /// Names the key, never its secret.
    public var description: String { "TSIG key \(name) (hmac-sha256)" }

    /// The key's name alone.
    public var customMirror: Mirror { Mirror(self, children: ["name": name]) }

    /// The words of a BIND configuration fragment: quoted strings without their quotes, `{`, `}`
    /// and `;` dropped, comments (`#`, `//`, `/* */`) skipped.
    private static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var characters = text.makeIterator()
        var pending: Character?
        func endToken() {
            if !current.isEmpty { tokens.append(current) }
            current = ""
        }
        while let character = pending ?? characters.next() {
            pending = nil
            switch character {
            case "\"":
                endToken()
                var quoted = ""
                while let next = characters.next(), next != "\"" { quoted.append(next) }
                tokens.append(quoted)
            case "#":
                endToken()
                while let next = characters.next(), next != "\n" {}
            case "/":
                let next = characters.next()
                if next == "/" {
                    endToken()
                    while let skipped = characters.next(), skipped != "\n" {}
                } else if next == "*" {
                    endToken()
                    var previous: Character?
                    while let skipped = characters.next(), !(previous == "*" && skipped == "/") { previous = skipped }
                } else {
                    current.append(character)
                    pending = next
                }
            case "{", "}", ";", " ", "\t", "\n", "\r":
                endToken()
            default:
                current.append(character)
            }
        }
        endToken()
        return tokens
    }
}
