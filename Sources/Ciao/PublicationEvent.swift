/// What happens to a ``CiaoServer``'s publication.
public enum PublicationEvent: Equatable, Hashable, Sendable {
    /// The name is ours and announced; repeated with the new name after a rename (RFC 6762 §9).
    case started(PublishedService)
    /// The publication was withdrawn by ``CiaoServer/stop()`` (goodbyes sent).
    case stopped
    /// The publication ended: a name conflict with renaming off, or a timeout.
    case failed(CiaoError)
}
