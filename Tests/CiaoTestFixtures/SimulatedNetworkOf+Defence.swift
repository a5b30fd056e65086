import CiaoEngine
import CiaoSimulation
import CiaoWire

extension SimulatedNetworkOf {
    /// Runs the network until `end`, with observer `host` answering every probe for a name
    /// matching `defended` with conflicting records (`record` renamed to the probed name, or
    /// ``Services/conflictingSRV(for:)``) on `link`, as the name's owner defends it (RFC 6762 §8.2).
    public mutating func defend(
        until end: Instant, by host: HostID, on link: LinkID, with record: ResourceRecord? = nil,
        _ defended: (DomainName) -> Bool
    ) {
        var seen = received(by: host).count
        while now < end {
            run(for: .milliseconds(2))
            for probe in receivedMessages(.probes, by: host, skipping: seen) {
                let answers = probe.message.questions.filter { defended($0.name) }.map { question in
                    var answer = record ?? Services.conflictingSRV(for: question.name)
                    answer.name = question.name
                    return answer
                }
                guard !answers.isEmpty else { continue }
                inject(Messages.response(answers), from: host, on: link)
            }
            seen = received(by: host).count
        }
    }
}
