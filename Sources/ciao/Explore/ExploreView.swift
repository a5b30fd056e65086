import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Draws an ``ExploreModel`` into a ``Screen`` of any size: a header with the views, the
/// browse view's three columns (types, instances, details) or the publish view, and a status
/// line with the search field or the keys. The selected row is marked with `>` as well as
/// styled, so it shows without colour too.
enum ExploreView {
    static func render(_ model: ExploreModel, width: Int, height: Int, now: Date) -> Screen {
        var screen = Screen(width: width, height: height)
        guard width > 0, height > 0 else { return screen }
        header(model, into: &screen)
        if height > 2 {
            switch model.mode {
            case .browse: browse(model, into: &screen, now: now)
            case .publish: publish(model, into: &screen)
            }
        }
        if height > 1 { footer(model, into: &screen) }
        if let form = model.form { draw(form, into: &screen) }
        if model.showsHelp { help(into: &screen) }
        return screen
    }

    // MARK: Frame

    private static func header(_ model: ExploreModel, into screen: inout Screen) {
        screen.paint(row: 0, column: 0, count: screen.width, style: .reverse)
        var column = screen.put(" ciao explore ", row: 0, column: 0, style: Screen.Style(bold: true, reverse: true))
        for (mode, title) in [(ExploreModel.Mode.browse, "Browse"), (.publish, "Publish")] {
            let text = model.mode == mode ? "[\(title)]" : " \(title) "
            column += screen.put(
                text, row: 0, column: column,
                style: model.mode == mode ? Screen.Style(bold: true) : .reverse)
        }
        let counts = "\(model.types.count) types  \(model.liveCount) services "
        let start = screen.width - DisplayWidth.of(counts)
        if start > column + 1 { screen.put(counts, row: 0, column: start, style: .reverse) }
    }

    private static func footer(_ model: ExploreModel, into screen: inout Screen) {
        let row = screen.height - 1
        if model.isEditingSearch {
            screen.put("/" + model.search + "_", row: row, column: 0, style: .bold)
            return
        }
        let keys =
            switch (model.mode, model.form != nil) {
            case (_, true): "Enter save  Tab next field  Esc cancel"
            case (.browse, _): "↑↓ move  →/Enter open  ← back  / search  Tab publish  ? help  q quit"
            case (.publish, _): "n new  e edit TXT  s stop/start  x remove  Tab browse  ? help  q quit"
            }
        var column = 0
        if !model.search.isEmpty {
            column += screen.put("filter: \(model.search)  ", row: row, column: 0, style: .bold)
        }
        if !model.hasInterface {
            column += screen.put(
                "waiting for a network interface…  ", row: row, column: column, style: Screen.Style(color: .yellow))
        }
        if let message = model.message {
            column += screen.put(message + "  ", row: row, column: column, style: Screen.Style(color: .yellow))
        }
        screen.put(keys, row: row, column: column, style: .dim)
    }

    /// The list area's rows: between the header plus title row and the status line.
    private static func bodyRows(_ screen: Screen) -> Range<Int> { 2..<max(2, screen.height - 1) }

    // MARK: Browse

    /// Column widths at `width`: types, instances, details (each separated by one column).
    static func columnWidths(_ width: Int) -> (types: Int, instances: Int, details: Int) {
        let types = min(max(width / 4, 14), 40)
        let instances = min(max(width * 35 / 100, 20), 64)
        return (types, instances, max(0, width - types - instances - 2))
    }

    private static func browse(_ model: ExploreModel, into screen: inout Screen, now: Date) {
        let widths = columnWidths(screen.width)
        let rows = bodyRows(screen)
        let types = model.visibleTypes
        let shownType = model.selectedType ?? types.first
        let instances = model.visibleInstances
        let origins = (types: 0, instances: widths.types + 1, details: widths.types + widths.instances + 2)
        title(
            "Types (\(types.count))", focused: model.column == .types, into: &screen, column: origins.types,
            width: widths.types)
        title(
            "Instances (\(instances.count))", focused: model.column == .instances, into: &screen,
            column: origins.instances, width: widths.instances)
        title(
            "Details", focused: model.column == .details, into: &screen, column: origins.details, width: widths.details)
        for row in 1..<screen.height - 1 {
            screen.put("│", row: row, column: widths.types, style: .dim)
            screen.put("│", row: row, column: widths.types + widths.instances + 1, style: .dim)
        }
        let counts = Dictionary(grouping: model.instances.values.filter { !$0.isGone }, by: \.service.type)
            .mapValues(\.count)
        list(
            types.map { type in
                (
                    text: type.rawValue, trailer: counts[type].map(String.init) ?? "",
                    style: Screen.Style.plain, selected: type == shownType
                )
            }, focused: model.column == .types, into: &screen, rows: rows, column: origins.types, width: widths.types)
        let shown = model.shownInstance
        list(
            instances.map { instance in
                (
                    text: instance.service.name,
                    trailer: instance.isGone ? "gone" : instance.interfaceName,
                    style: instance.isGone ? Screen.Style(dim: true, color: .red) : .plain,
                    selected: instance.service.id == shown?.service.id
                )
            }, focused: model.column == .instances, into: &screen, rows: rows, column: origins.instances,
            width: widths.instances)
        guard let shown else {
            if types.isEmpty, rows.count > 0 {
                screen.put(
                    model.search.isEmpty ? "looking for services…" : "nothing matches",
                    row: rows.lowerBound, column: origins.types + 2, limit: widths.types - 2, style: .dim)
            }
            return
        }
        let lines = details(of: shown, now: now).flatMap { wrap($0, width: widths.details - 1) }
        let scroll = min(model.detailsScroll, max(0, lines.count - rows.count))
        for (offset, line) in lines.dropFirst(scroll).prefix(rows.count).enumerated() {
            screen.put(
                line.text, row: rows.lowerBound + offset, column: origins.details + 1, limit: widths.details - 1,
                style: line.style)
        }
    }

    private static func title(_ text: String, focused: Bool, into screen: inout Screen, column: Int, width: Int) {
        screen.put(" " + text, row: 1, column: column, limit: width, style: focused ? .bold : .dim)
    }

    /// A scrolled list with its selected row kept in view; `trailer` right-aligned.
    private static func list(
        _ items: [(text: String, trailer: String, style: Screen.Style, selected: Bool)], focused: Bool,
        into screen: inout Screen, rows: Range<Int>, column: Int, width: Int
    ) {
        guard !rows.isEmpty, width > 2 else { return }
        let selected = items.firstIndex { $0.selected } ?? 0
        let first = max(0, min(selected - rows.count / 2, items.count - rows.count))
        for (offset, item) in items.dropFirst(first).prefix(rows.count).enumerated() {
            let row = rows.lowerBound + offset
            let trailer = item.trailer.isEmpty ? "" : " " + item.trailer
            let trailerWidth = min(DisplayWidth.of(trailer), max(0, width - 6))
            var style = item.style
            if item.selected {
                style.reverse = focused
                style.bold = true
                screen.paint(row: row, column: column, count: width, style: style)
            }
            screen.put(item.selected ? ">" : " ", row: row, column: column, style: style)
            screen.put(item.text, row: row, column: column + 1, limit: width - 1 - trailerWidth, style: style)
            screen.put(
                trailer, row: row, column: column + width - trailerWidth, limit: trailerWidth,
                style: item.selected ? style : Screen.Style(dim: true, color: style.color))
        }
    }

    /// What the details column says of `instance`: everything a resolution gave, each address
    /// and TXT entry on a line of its own.
    static func details(of instance: DiscoveredInstance, now: Date) -> [(text: String, style: Screen.Style)] {
        let service = instance.service
        var lines: [(text: String, style: Screen.Style)] = [
            (service.name, .bold),
            ("Type: \(service.type.rawValue)", .plain),
            ("Domain: \(service.domain)", .plain),
            ("Interface: \(instance.interfaceName)", .plain),
        ]
        if let removed = instance.removedAt {
            lines.append(("Gone at \(TimeOfDay.of(removed)) (goodbye or expiry)", Screen.Style(color: .red)))
        }
        if let resolved = instance.resolved {
            lines += [("Host: \(resolved.hostName)", .plain), ("Port: \(resolved.port)", .plain)]
            lines.append(("Addresses (\(resolved.addresses.count)):", .plain))
            lines += resolved.addresses.map { ("  " + $0, .plain) }
            let entries = resolved.txtRecord.entries
            lines.append(("TXT (\(entries.count)):", .plain))
            lines += entries.map { (TXTEntryText.describe($0), .plain) }
        } else if let failure = instance.failure {
            lines.append(("Not resolved: \(failure)", Screen.Style(color: .red)))
        } else {
            lines.append(("resolving…", .dim))
        }
        lines.append(("Last seen: \(TimeOfDay.of(instance.lastSeen)) (\(age(instance.lastSeen, now: now)))", .dim))
        return lines
    }

    /// `line` cut into pieces of at most `width` columns, the continuations indented.
    private static func wrap(_ line: (text: String, style: Screen.Style), width: Int) -> [(
        text: String, style: Screen.Style
    )] {
        guard width > 4, DisplayWidth.of(line.text) > width else { return [line] }
        var pieces: [(text: String, style: Screen.Style)] = []
        var current = ""
        var used = 0
        for character in line.text {
            let size = DisplayWidth.of(character)
            if used + size > width {
                pieces.append((current, line.style))
                current = "  "
                used = 2
            }
            current.append(character)
            used += size
        }
        pieces.append((current, line.style))
        return pieces
    }

    private static func age(_ date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        return seconds < 60 ? "\(seconds) s ago" : "\(seconds / 60) min ago"
    }

    // MARK: Publish

    private static func publish(_ model: ExploreModel, into screen: inout Screen) {
        let rows = bodyRows(screen)
        screen.put(" Published by this program (\(model.publications.count))", row: 1, column: 0, style: .bold)
        guard !model.publications.isEmpty else {
            screen.put(
                "  n publishes a demo service; its name, type, port and TXT can be changed first.",
                row: rows.lowerBound, column: 0, style: .dim)
            return
        }
        let selectedIndex = model.publications.firstIndex { $0.id == model.selectedPublication } ?? 0
        let listRows = rows.lowerBound..<max(rows.lowerBound, rows.upperBound - 6)
        list(
            model.publications.map { publication in
                let (state, style) = describe(publication.state)
                return (
                    text: "\(publication.configuration.name)  \(publication.configuration.type.rawValue)",
                    trailer: state, style: style, selected: publication.id == model.selectedPublication
                )
            }, focused: true, into: &screen, rows: listRows.isEmpty ? rows : listRows, column: 0, width: screen.width)
        guard !listRows.isEmpty else { return }
        let publication = model.publications[selectedIndex]
        var lines = [publicationSummary(publication)]
        lines += publication.configuration.txtRecord.entries.map(TXTEntryText.describe)
        for (offset, line) in lines.prefix(rows.upperBound - listRows.upperBound).enumerated() {
            screen.put(line, row: listRows.upperBound + offset, column: 1, style: offset == 0 ? .bold : .plain)
        }
    }

    private static func publicationSummary(_ publication: Publication) -> String {
        let configuration = publication.configuration
        let port = configuration.mode == .listener ? "a port Ciao holds" : "port \(configuration.port)"
        guard case .running(let published) = publication.state else {
            return "\(configuration.name) on \(port), TXT (\(configuration.txtRecord.entries.count)):"
        }
        return "'\(published.service.name)' on \(published.hostName) port \(published.port), TXT "
            + "(\(configuration.txtRecord.entries.count)):"
    }

    private static func describe(_ state: Publication.State) -> (String, Screen.Style) {
        switch state {
        case .starting: ("probing…", Screen.Style(color: .yellow))
        case .running(let published): ("up as '\(published.service.name)'", Screen.Style(color: .green))
        case .stopping: ("stopping…", Screen.Style(color: .yellow))
        case .stopped: ("stopped", .dim)
        case .failed(let reason): ("failed: \(reason)", Screen.Style(color: .red))
        }
    }

    // MARK: Overlays

    private static func draw(_ form: PublishForm, into screen: inout Screen) {
        let height = form.fields.count + 4
        let width = min(screen.width, 76)
        let top = max(1, screen.height - 1 - height)
        let left = max(0, (screen.width - width) / 2)
        box(
            form.editing == nil ? "New publication" : "Edit TXT", into: &screen, top: top, left: left, width: width,
            height: height)
        for (offset, field) in form.fields.enumerated() {
            let row = top + 1 + offset
            let focused = field == form.focus
            let label = (focused ? ">" : " ") + field.rawValue + ":"
            screen.put(label, row: row, column: left + 1, style: focused ? .bold : .plain)
            let value = (form.values[field] ?? "") + (focused ? "_" : "")
            // The end of a long value is what is being typed.
            let room = max(2, width - 10)
            let shown = DisplayWidth.of(value) > room ? "…" + String(value.suffix(room - 1)) : value
            screen.put(shown, row: row, column: left + 8, limit: room, style: focused ? .reverse : .plain)
        }
        let hint =
            form.error
            ?? (form.editing == nil
                ? "Port empty: Ciao holds one. TXT: KEY=VALUE KEY= KEY, \\xHH a byte"
                : "KEY=VALUE KEY= KEY, \\xHH a byte")
        screen.put(
            hint, row: top + height - 2, column: left + 1, limit: width - 2,
            style: form.error == nil ? .dim : Screen.Style(color: .red))
    }

    private static func help(into screen: inout Screen) {
        let lines = [
            "Browse: the service types on the network, a type's",
            "instances on each interface, and an instance's details.",
            "  ↑ ↓ PgUp PgDn Home End   move       → Enter   open",
            "  ← Esc                    back       /         search",
            "  r   ask whether the instance shown is still there",
            "Publish: this program's own services.",
            "  n new   e edit TXT   s stop/start   x remove",
            "Tab switches view, Ctrl-L redraws, q quits (goodbyes",
            "are sent for every publication). Any key closes this.",
        ]
        let width = min(screen.width, 60)
        let height = lines.count + 2
        let top = max(1, (screen.height - height) / 2)
        let left = max(0, (screen.width - width) / 2)
        box("Help", into: &screen, top: top, left: left, width: width, height: height)
        for (offset, line) in lines.enumerated() {
            screen.put(line, row: top + 1 + offset, column: left + 2, limit: width - 3)
        }
    }

    private static func box(_ title: String, into screen: inout Screen, top: Int, left: Int, width: Int, height: Int) {
        guard width > 2, height > 2 else { return }
        let horizontal = String(repeating: "─", count: width - 2)
        screen.put("┌" + horizontal + "┐", row: top, column: left)
        for row in top + 1..<top + height - 1 {
            screen.put("│" + String(repeating: " ", count: width - 2) + "│", row: row, column: left)
        }
        screen.put("└" + horizontal + "┘", row: top + height - 1, column: left)
        screen.put(" \(title) ", row: top, column: left + 2, style: .bold)
    }
}
