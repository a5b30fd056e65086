import CiaoWire

/// One line about a DNS message for a diagnostic: its questions, or its answers, each as name and
/// type, the first few only.
enum MessageSummary {
    static let shownRecords = 4

    static func describe(_ message: Message) -> String {
        if !message.header.isResponse {
            var text =
                "for " + list(message.questions.map { "\($0.name) \($0.type)" + ($0.unicastResponse ? " (QU)" : "") })
            if !message.authorities.isEmpty { text += ", proposing \(count(message.authorities.count, "record"))" }
            if !message.answers.isEmpty { text += ", \(count(message.answers.count, "known answer"))" }
            return text + (message.header.isTruncated ? ", truncated" : "")
        }
        let answers = message.answers.filter { $0.type != .opt }
        var text = list(answers.map { "\($0.name) \($0.type)" + ($0.ttl == 0 ? " (goodbye)" : "") })
        let additionals = message.additionals.filter { $0.type != .opt }.count
        if additionals > 0 { text += ", \(count(additionals, "additional record"))" }
        return text
    }

    private static func list(_ items: [String]) -> String {
        guard !items.isEmpty else { return "nothing" }
        let shown = items.prefix(shownRecords).joined(separator: ", ")
        return items.count > shownRecords ? shown + " and \(items.count - shownRecords) more" : shown
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
