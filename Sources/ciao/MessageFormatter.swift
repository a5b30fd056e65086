import CiaoWire

/// Prints a decoded message in the layout `dig` uses: header, flags, then one block per section.
enum MessageFormatter {
    static func format(_ decoded: DecodedMessage) -> String {
        let message = decoded.message
        let header = message.header
        let flagNames = [
            (header.isResponse, "qr"), (header.isAuthoritativeAnswer, "aa"), (header.isTruncated, "tc"),
            (header.isRecursionDesired, "rd"), (header.isRecursionAvailable, "ra"), (header.zero, "z"),
            (header.isAuthenticData, "ad"), (header.isCheckingDisabled, "cd"),
        ].filter(\.0).map(\.1)
        var lines = [
            ";; ->>HEADER<<- opcode: QUERY, status: \(rcodeName(header.rcode)), id: \(header.id)",
            ";; flags:\(flagNames.map { " " + $0 }.joined()); QUERY: \(message.questions.count), "
                + "ANSWER: \(message.answers.count), AUTHORITY: \(message.authorities.count), "
                + "ADDITIONAL: \(message.additionals.count)",
        ]
        if !message.questions.isEmpty {
            lines += ["", ";; QUESTION SECTION:"] + message.questions.map { ";\($0)" }
        }
        for (title, records) in [
            ("ANSWER", message.answers), ("AUTHORITY", message.authorities), ("ADDITIONAL", message.additionals),
        ]
        where !records.isEmpty {
            lines += ["", ";; \(title) SECTION:"] + records.map(\.description)
        }
        if !decoded.skippedRecords.isEmpty {
            lines += ["", ";; SKIPPED RECORDS:"]
            lines += decoded.skippedRecords.map {
                ";\($0.name) \($0.type) in \($0.section) #\($0.index + 1): \($0.error)"
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func rcodeName(_ rcode: UInt8) -> String {
        ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"].dropFirst(Int(rcode)).first
            ?? "RCODE\(rcode)"
    }
}
