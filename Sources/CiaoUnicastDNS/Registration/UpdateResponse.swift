import CiaoWire

/// A server's reply to one signed DNS UPDATE, checked and read (RFC 2136 §3.8, RFC 8945 §5.3,
/// RFC 9664 §4).
struct UpdateResponse: Hashable, Sendable {
    /// The lease the server granted (RFC 9664); nil when it granted none, as BIND does.
    var grantedLease: UInt32?

    /// Reads `bytes` as the reply to the update `id` of `instance` in `zone`, signed with
    /// `requestMAC` under `key`. Returns nil for bytes that are not that reply (another ID, not a response, not an
    /// UPDATE), which the caller ignores; throws the server's refusal as a typed error.
    static func read(
        _ bytes: [UInt8], id: UInt16, instance: DomainName, zone: DomainName, key: TSIGKey, requestMAC: [UInt8],
        unixTime: UInt64
    ) throws(RegistrationError) -> UpdateResponse? {
        guard bytes.count >= MessageHeader.size else { return nil }
        let header = MessageHeader(
            id: UInt16(bytes[0]) << 8 | UInt16(bytes[1]), flags: UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
        guard header.id == id, header.isResponse, header.opcode == DNSUpdate.opcode else { return nil }
        let signature: Result<TSIGRecord, TSIGError>
        do throws(TSIGError) {
            signature = .success(try TSIG.verify(bytes, with: key, requestMAC: requestMAC, at: unixTime))
        } catch {
            signature = .failure(error)
        }
        switch (signature, header.rcode) {
        case (.failure(.unsigned), let rcode) where rcode != 0:
            // A server answers an update it will not authenticate without a signature (RFC 8945 §5.3.2).
            throw Self.error(rcode: rcode, instance: instance, zone: zone)
        case (.failure(let error), _): throw .authentication(error)
        case (.success, 0): return UpdateResponse(grantedLease: Self.lease(in: bytes))
        case (.success, let rcode): throw Self.error(rcode: rcode, instance: instance, zone: zone)
        }
    }

    static func error(rcode: UInt8, instance: DomainName, zone: DomainName) -> RegistrationError {
        switch rcode {
        case 5: .refused(zone: zone)
        case 6: .nameInUse(instance)
        case 7, 8: .prerequisiteFailed(rcode: rcode)
        case 9: .notAuthoritative(zone: zone)
        case 10: .notInZone(zone: zone)
        default: .serverFailure(rcode: rcode)
        }
    }

    /// The Update Lease option in the reply's OPT record; nil when there is none, or when the
    /// (already verified) sections do not decode.
    static func lease(in bytes: [UInt8]) -> UInt32? {
        guard let message = try? Message.decode(bytes, limits: .unicast).message else { return nil }
        for record in message.additionals {
            guard case .opt(let options) = record.data else { continue }
            if let lease = options.lazy.compactMap(\.updateLease).first { return lease.lease }
        }
        return nil
    }
}
