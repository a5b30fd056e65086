/// One keypress or mouse event read from the terminal, as ``KeyDecoder`` decodes it (ECMA-48
/// control sequences as xterm sends them).
enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case enter, escape, tab, backTab, backspace, delete
    /// Ctrl with a letter, such as `control("c")` for 0x03.
    case control(Character)
    case mouse(MouseEvent)
}

/// A mouse report in xterm's SGR encoding (`CSI < button ; column ; row M`), columns and rows
/// counted from 0.
struct MouseEvent: Hashable, Sendable {
    enum Action: Hashable, Sendable {
        case press, release, wheelUp, wheelDown
    }

    var action: Action
    var column: Int
    var row: Int
}
