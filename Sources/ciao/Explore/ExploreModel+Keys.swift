import Ciao

/// What each key does, as in htop and tig: arrows move, Enter and → open, Esc and ← go back,
/// `/` searches, `r` reconfirms an instance, Tab switches view, `?` shows help, `q` quits.
extension ExploreModel {
    /// Rows a Page Up / Page Down moves.
    static let pageSize = 10

    /// Applies `key`; returns what the driver must do.
    mutating func handle(_ key: Key) -> [ExploreAction] {
        switch key {
        case .control("c"): return [.quit]
        case .control("l"): return [.redraw]
        case .control("z"): return [.suspend]
        default: break
        }
        if form != nil { return handleForm(key) }
        if isEditingSearch { return handleSearch(key) }
        if showsHelp {
            showsHelp = false
            return key == .character("q") ? [.quit] : []
        }
        switch key {
        case .character("q"): return [.quit]
        case .character("?"), .character("h"):
            showsHelp = true
            return []
        case .tab, .backTab:
            mode = mode == .browse ? .publish : .browse
            message = nil
            return []
        default:
            break
        }
        switch mode {
        case .browse: return handleBrowse(key)
        case .publish: return handlePublish(key)
        }
    }

    private mutating func handleBrowse(_ key: Key) -> [ExploreAction] {
        switch key {
        case .character("/"):
            isEditingSearch = true
        case .up: move(by: -1)
        case .down: move(by: 1)
        case .pageUp: move(by: -Self.pageSize)
        case .pageDown: move(by: Self.pageSize)
        case .home: move(by: -Int.max / 2)
        case .end: move(by: Int.max / 2)
        case .mouse(let event) where event.action == .wheelUp: move(by: -3)
        case .mouse(let event) where event.action == .wheelDown: move(by: 3)
        case .right, .enter, .character("l"):
            openColumn()
        case .left, .backspace, .escape:
            if column == .types, key == .escape { search = "" }
            closeColumn()
        case .character("r"):
            // An instance that seems gone (a device unplugged says no goodbye) is asked about.
            guard column != .types, let instance = shownInstance, !instance.isGone else { return [] }
            message = "asking whether \(instance.service.name) is still there"
            return [.reconfirm(instance.service)]
        default:
            break
        }
        return []
    }

    private mutating func openColumn() {
        switch column {
        case .types:
            guard let type = selectedType ?? visibleTypes.first else { return }
            selectedType = type
            column = .instances
            if selectedInstance.flatMap({ id in visibleInstances.first { $0.service.id == id } }) == nil {
                selectedInstance = visibleInstances.first?.service.id
            }
        case .instances:
            guard shownInstance != nil else { return }
            selectedInstance = shownInstance?.service.id
            column = .details
            detailsScroll = 0
        case .details:
            break
        }
    }

    private mutating func closeColumn() {
        column = Column(rawValue: max(0, column.rawValue - 1)) ?? .types
    }

    /// Moves the selection of the focused column, clamped to its list.
    private mutating func move(by offset: Int) {
        func moved(_ count: Int, from index: Int?) -> Int {
            guard let index else { return offset > 0 ? 0 : count - 1 }
            return min(max(0, index + offset), count - 1)
        }
        switch column {
        case .types:
            let list = visibleTypes
            guard !list.isEmpty else { return }
            selectedType = list[moved(list.count, from: selectedType.flatMap(list.firstIndex(of:)))]
        case .instances:
            let list = visibleInstances
            guard !list.isEmpty else { return }
            let current = list.firstIndex { $0.service.id == selectedInstance }
            selectedInstance = list[moved(list.count, from: current)].service.id
        case .details:
            detailsScroll = max(0, detailsScroll + offset)
        }
    }

    private mutating func handleSearch(_ key: Key) -> [ExploreAction] {
        switch key {
        case .character(let character): search.append(character)
        case .backspace: if !search.isEmpty { search.removeLast() }
        case .enter: isEditingSearch = false
        case .escape:
            search = ""
            isEditingSearch = false
        case .up, .down: return handleBrowse(key)
        default: break
        }
        if let selectedType, !visibleTypes.contains(selectedType) { self.selectedType = visibleTypes.first }
        return []
    }

    private mutating func handlePublish(_ key: Key) -> [ExploreAction] {
        let ids = publications.map(\.id)
        let index = selectedPublication.flatMap(ids.firstIndex(of:))
        switch key {
        case .character("n"):
            form = .new(number: nextDemoNumber)
        case .up:
            if let index, index > 0 { selectedPublication = ids[index - 1] }
        case .down:
            if let index, index + 1 < ids.count { selectedPublication = ids[index + 1] }
        case .character("e"), .enter:
            if let publication = publications.first(where: { $0.id == selectedPublication }) {
                form = .txt(of: publication)
            }
        case .character("s"), .character(" "):
            if let id = selectedPublication, let action = toggle(id) { return [action] }
        case .character("x"), .character("d"), .delete:
            if let id = selectedPublication, let action = remove(id) { return [action] }
        default:
            break
        }
        return []
    }

    private mutating func handleForm(_ key: Key) -> [ExploreAction] {
        guard var form else { return [] }
        defer { if self.form != nil { self.form = form } }
        switch key {
        case .character(let character): form.type(character)
        case .backspace: form.deleteBackward()
        case .tab, .down: form.moveFocus(by: 1)
        case .backTab, .up: form.moveFocus(by: -1)
        case .escape: self.form = nil
        case .enter: return submit(&form)
        default: break
        }
        return []
    }

    private mutating func submit(_ form: inout PublishForm) -> [ExploreAction] {
        let submitted = form
        do {
            if let id = submitted.editing {
                let record = try submitted.txtRecord()
                self.form = nil
                guard publications.first(where: { $0.id == id })?.isActive == true else {
                    // A stopped publication takes the new TXT when it starts again.
                    txtUpdated(id, record)
                    return []
                }
                return [.updateTXT(id: id, record)]
            }
            let configuration = try submitted.configuration()
            self.form = nil
            mode = .publish
            return [addPublication(configuration)]
        } catch {
            form.error = "\(error)"
            return []
        }
    }
}
