/// The fields of the RDATA of types that CiaoWire keeps as opaque bytes but that may carry
/// compressed names (RFC 3597 §4, RFC 6762 §18.14). The decoder expands their names so the bytes
/// it keeps stand alone and re-encode correctly anywhere.
enum RDataLayout {
    enum Field {
        case uint16
        case name
        case bytes(Int)
    }

    /// Layouts of the RFC 1035-era types whose names may be compressed; `nil` for every other type.
    static func fields(of type: RecordType) -> [Field]? {
        switch type.rawValue {
        case 2, 3, 4, 5, 7, 8, 9, 39: [.name]  // NS, MD, MF, CNAME, MB, MG, MR, DNAME
        case 6: [.name, .name, .bytes(20)]  // SOA
        case 14, 17: [.name, .name]  // MINFO, RP
        case 15, 18, 21, 36: [.uint16, .name]  // MX, AFSDB, RT, KX
        case 26: [.uint16, .name, .name]  // PX
        default: nil
        }
    }
}
