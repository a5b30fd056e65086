import CiaoWire

/// A grid of character cells the views draw into, and the escape sequences that bring a
/// terminal showing one grid to show another, rewriting only the changed stretch of each row.
/// Text from the network is drawn with its control characters replaced, so a name can never
/// send an escape sequence to the terminal.
struct Screen: Equatable {
    /// How a cell is drawn; ignored unless the output may be styled (``TerminalStyle``).
    struct Style: Hashable {
        enum Color: Int {
            case red = 31
            case green = 32
            case yellow = 33
        }

        var bold = false
        var dim = false
        var reverse = false
        var color: Color?

        static let plain = Style()
        static let bold = Style(bold: true)
        static let dim = Style(dim: true)
        static let reverse = Style(reverse: true)

        /// The SGR sequence (ECMA-48 §8.3.117) that sets exactly this style.
        var sequence: String {
            var codes = ["0"]
            if bold { codes.append("1") }
            if dim { codes.append("2") }
            if reverse { codes.append("7") }
            if let color { codes.append(String(color.rawValue)) }
            return "\u{1B}[" + codes.joined(separator: ";") + "m"
        }
    }

    struct Cell: Hashable {
        /// The character shown; nil in the second column of a wide character.
        var character: Character?
        var style: Style

        static let blank = Cell(character: " ", style: .plain)
    }

    let width: Int
    let height: Int
    private(set) var cells: [Cell]

    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// Draws `text` from `column` on `row`, clipped to `limit` columns (to the right edge when
    /// nil), a last character that does not fit replaced by `…`; returns the columns used.
    @discardableResult
    mutating func put(_ text: String, row: Int, column: Int, limit: Int? = nil, style: Style = .plain) -> Int {
        guard row >= 0, row < height, column >= 0, column < width else { return 0 }
        let available = min(limit ?? width - column, width - column)
        let characters = text.map(Self.printable)
        let fits = characters.reduce(0) { $0 + DisplayWidth.of($1) } <= available
        let room = fits ? available : available - 1
        var used = 0
        for character in characters {
            let size = DisplayWidth.of(character)
            if used + size > room { break }
            if size == 0 { continue }
            set(Cell(character: character, style: style), row: row, column: column + used)
            if size == 2 { set(Cell(character: nil, style: style), row: row, column: column + used + 1) }
            used += size
        }
        if !fits, available > 0 {
            set(Cell(character: "…", style: style), row: row, column: column + used)
            used += 1
        }
        return used
    }

    /// Paints `count` cells from `column` on `row` with `style`, keeping their characters.
    mutating func paint(row: Int, column: Int, count: Int, style: Style) {
        guard row >= 0, row < height, count > 0, column < width else { return }
        for x in max(0, column)..<min(width, column + count) { cells[row * width + x].style = style }
    }

    /// The text of `row`, trailing spaces kept, for tests and for `capture-pane`-like checks.
    func line(_ row: Int) -> String {
        String(cells[row * width..<(row + 1) * width].compactMap(\.character))
    }

    var lines: [String] { (0..<height).map(line) }

    private mutating func set(_ cell: Cell, row: Int, column: Int) {
        guard column < width else { return }
        // Overwriting half of a wide character blanks its other half.
        let index = row * width + column
        if cells[index].character == nil, column > 0 { cells[index - 1] = .blank }
        if column + 1 < width, cells[index + 1].character == nil, DisplayWidth.of(cells[index].character ?? " ") == 2 {
            cells[index + 1] = .blank
        }
        cells[index] = cell
    }

    private static func printable(_ character: Character) -> Character {
        character.unicodeScalars.contains(where: \.isControlCharacter)
            ? "\u{FFFD}" : character
    }

    /// The output that turns a terminal showing `previous` (nil: unknown, so everything is drawn)
    /// into one showing this grid; with `styled` false no SGR sequence is written.
    func rendering(from previous: Screen?, styled: Bool) -> String {
        let previous = previous.flatMap { $0.width == width && $0.height == height ? $0 : nil }
        var output = previous == nil ? "\u{1B}[0m\u{1B}[2J" : ""
        var current: Style? = nil
        for row in 0..<height {
            let base = row * width
            var first = 0
            var last = width - 1
            if let previous {
                while first < width, cells[base + first] == previous.cells[base + first] { first += 1 }
                if first == width { continue }
                while last > first, cells[base + last] == previous.cells[base + last] { last -= 1 }
            }
            while first > 0, cells[base + first].character == nil { first -= 1 }
            output += "\u{1B}[\(row + 1);\(first + 1)H"
            for cell in cells[base + first...base + last] {
                guard let character = cell.character else { continue }
                if styled, current != cell.style {
                    output += cell.style.sequence
                    current = cell.style
                }
                output.append(character)
            }
        }
        if styled, current != nil, current != .plain { output += Style.plain.sequence }
        return output
    }
}
