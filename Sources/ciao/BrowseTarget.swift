import Ciao

/// What one TYPE argument of `ciao browse` names: a service type, or its instances under a
/// subtype (RFC 6763 §7.1), spelled `_printer._sub._http._tcp` or, as `dns-sd -B` takes it,
/// `_http._tcp,_printer`.
struct BrowseTarget: Hashable {
    var type: ServiceType
    var subtype: String?

    init(type: ServiceType, subtype: String? = nil) {
        self.type = type
        self.subtype = subtype
    }

    init(parsing text: String) throws(ArgumentError) {
        var typeText = Substring(text)
        var subtype: String?
        if let comma = text.firstIndex(of: ",") {
            typeText = text[..<comma]
            subtype = String(text[text.index(after: comma)...])
        } else {
            let labels = text.split(separator: ".", omittingEmptySubsequences: false)
            if labels.count >= 4, labels[1].lowercased() == "_sub" {
                subtype = String(labels[0])
                typeText = text[text.index(text.startIndex, offsetBy: labels[0].count + labels[1].count + 2)...]
            }
        }
        self.init(type: try CommonOptions.serviceType(String(typeText)), subtype: subtype)
        if let subtype {
            do {
                try ServiceType.checkSubtype(subtype)
            } catch {
                throw ArgumentError("\(error)")
            }
        }
    }
}
