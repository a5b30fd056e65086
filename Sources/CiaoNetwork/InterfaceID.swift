/// An interface, by its operating-system index.
public struct InterfaceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var index: UInt32

    public init(_ index: UInt32) { self.index = index }

    public static func < (lhs: InterfaceID, rhs: InterfaceID) -> Bool { lhs.index < rhs.index }

    public var description: String { "if\(index)" }
}
