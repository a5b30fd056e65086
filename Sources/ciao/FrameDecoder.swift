/// Finds the UDP payload of an mDNS packet (either port 5353) inside a captured link-layer frame.
enum FrameDecoder {
    static let mdnsPort: UInt16 = 5353

    /// The UDP payload if the frame carries IPv4 or IPv6 UDP to or from port 5353.
    static func mdnsPayload(_ frame: ArraySlice<UInt8>, linkType: UInt32) -> ArraySlice<UInt8>? {
        let bytes = Array(frame)
        let network: ArraySlice<UInt8>
        switch linkType {
        case 1:  // Ethernet, after any 802.1Q / 802.1ad VLAN tags
            let reader = ByteReader(bytes, bigEndian: true)
            var offset = 12
            while let etherType = reader.uint16(at: offset), etherType == 0x8100 || etherType == 0x88A8 {
                offset += 4
            }
            guard offset + 2 <= bytes.count else { return nil }
            network = bytes[(offset + 2)...]
        case 113:  // Linux cooked capture v1
            guard bytes.count >= 16 else { return nil }
            network = bytes[16...]
        case 276:  // Linux cooked capture v2
            guard bytes.count >= 20 else { return nil }
            network = bytes[20...]
        case 0, 108:  // BSD loopback: 4-byte family
            guard bytes.count >= 4 else { return nil }
            network = bytes[4...]
        case 12, 101, 228, 229:  // raw IP
            network = bytes[...]
        default:
            return nil
        }
        return udpPayload(Array(network))
    }

    private static func udpPayload(_ packet: [UInt8]) -> ArraySlice<UInt8>? {
        guard let version = packet.first.map({ $0 >> 4 }) else { return nil }
        let udpOffset: Int
        switch version {
        case 4:
            let headerLength = Int(packet[0] & 0x0F) * 4
            guard packet.count >= 20, headerLength >= 20, packet[9] == 17 else { return nil }
            udpOffset = headerLength
        case 6:
            // Extension headers are not followed; mDNS over IPv6 is sent without them.
            guard packet.count >= 40, packet[6] == 17 else { return nil }
            udpOffset = 40
        default:
            return nil
        }
        let reader = ByteReader(packet, bigEndian: true)
        guard packet.count >= udpOffset + 8, let sourcePort = reader.uint16(at: udpOffset),
            let destinationPort = reader.uint16(at: udpOffset + 2), let length = reader.uint16(at: udpOffset + 4),
            sourcePort == mdnsPort || destinationPort == mdnsPort
        else { return nil }
        let end = min(packet.count, udpOffset + max(Int(length), 8))
        return packet[(udpOffset + 8)..<end]
    }
}
