/// What becomes of a publication.
enum PublicationUpdate: Hashable, Sendable {
    /// Probing found the name free (first time), or a rename settled on a new one; `hostName`
    /// is the target of the SRV record.
    case registered(name: String, hostName: String)
    /// The name is taken and renaming is off (DNS-SD error −65548).
    case nameConflict
    /// A conflict took the name it was probing or held; it probes again under another (§9).
    case lostName
    /// The publication cannot go on: a unicast DNS server refused the update or never answered.
    case failed(CiaoError)
}
