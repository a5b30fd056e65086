extension Unicode.Scalar {
    /// C0 and C1 controls, DEL, and the line and paragraph separators: characters that move a
    /// terminal's cursor, start an escape sequence or break a line, so that text from the network
    /// shows them only escaped.
    package var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

    /// This character's UTF-8 bytes in `\DDD` form (RFC 1035 §5.1).
    package var decimalEscaped: String {
        String(self).utf8.map(DomainName.decimalEscape).joined()
    }
}

extension String {
    /// This text with each control character (``Unicode/Scalar/isControlCharacter``) written as
    /// ``Unicode/Scalar/decimalEscaped``, everything else as it is: what may be printed to a
    /// terminal whatever a peer sent.
    package var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isControlCharacter) else { return self }
        var text = ""
        for scalar in unicodeScalars {
            if scalar.isControlCharacter {
                text += scalar.decimalEscaped
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
