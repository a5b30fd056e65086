import Ciao

/// What the explore view model asks its driver to do after a key: the model itself touches
/// neither the network nor the terminal.
enum ExploreAction: Equatable {
    /// Withdraw every publication with goodbyes, restore the terminal and exit.
    case quit
    /// Draw the whole screen again (Ctrl-L).
    case redraw
    /// Start (or start again) publication `id` with `configuration`.
    case publish(id: Int, PublicationConfiguration)
    /// Replace the TXT record of running publication `id` (RFC 6762 §8.4).
    case updateTXT(id: Int, TXTRecord)
    /// Withdraw publication `id` with goodbyes (RFC 6762 §10.1).
    case stop(id: Int)
    /// Ask the network whether `service` is still there; its browse reports it removed about ten
    /// seconds later unless it answers (RFC 6762 §10.4).
    case reconfirm(Service)
    /// Suspend like a shell job (Ctrl-Z): the terminal restored until it resumes.
    case suspend
}
