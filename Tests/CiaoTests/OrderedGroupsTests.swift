import Testing

@testable import Ciao

@Suite struct OrderedGroupsTests {
    @Test func groupsComeInTheOrderOfTheirFirstElement() {
        var groups = OrderedGroups<String, Int>()
        groups.append(1, to: "b")
        groups.append(2, to: "a")
        groups.append(3, to: "b")
        groups.append(4, to: "c")
        #expect(groups.keys == ["b", "a", "c"])
        #expect(groups["b"] == [1, 3])
        #expect(groups["a"] == [2])
        #expect(groups["c"] == [4])
    }

    @Test func aKeyWithNothingAppendedHasNoGroup() {
        var groups = OrderedGroups<String, Int>()
        #expect(groups.keys.isEmpty)
        #expect(groups["a"].isEmpty)
        groups.append(1, to: "a")
        #expect(groups["b"].isEmpty)
        #expect(groups.keys == ["a"])
    }
}
