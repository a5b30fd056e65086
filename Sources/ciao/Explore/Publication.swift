import Ciao

/// One service the publish view publishes, by a number of its own, with the configuration it
/// was last started with and where it stands.
struct Publication: Equatable {
    enum State: Equatable {
        case starting
        /// Announced, under the name it won (after any rename, RFC 6762 §9).
        case running(PublishedService)
        case stopping
        /// Withdrawn with goodbyes; can start again.
        case stopped
        case failed(String)
    }

    let id: Int
    var configuration: PublicationConfiguration
    var state: State

    var isActive: Bool {
        switch state {
        case .starting, .running, .stopping: true
        case .stopped, .failed: false
        }
    }
}
