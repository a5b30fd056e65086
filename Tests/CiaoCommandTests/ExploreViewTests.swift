import Ciao
import Foundation
import Testing
@testable import ciao

/// The explore screens drawn from a view model fed with discovery events, without a terminal.
@Suite struct ExploreViewTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let type = try! ServiceType("_ciaotest._tcp")

    static func model(services: Int = 1, name: (Int) -> String = { "Service \($0)" }) -> ExploreModel {
        var model = ExploreModel()
        model.typeFound(try! ServiceType("_http._tcp"))
        for index in 0..<services {
            let service = Service(name: name(index), type: type, interfaceIndex: 2)
            model.discovery(.found(service), interfaceName: "civ0", at: now)
            model.discovery(
                .resolved(
                    ResolvedService(
                        service: service, hostName: "peer.local.", port: 9000,
                        addresses: ["198.18.0.2", "fe80::1c2b:3cff:fe4d:5e6f%civ0"], txtRecord: Fixture.txt)),
                interfaceName: "civ0", at: now)
        }
        return model
    }

    static func open(_ model: inout ExploreModel, _ keys: Key...) {
        for key in keys { _ = model.handle(key) }
    }

    @Test(arguments: [(80, 24), (200, 60)])
    func everyRowFitsTheTerminal(width: Int, height: Int) {
        var model = Self.model(services: 3, name: { "Kitchen \($0) Ü 日本語 " + String(repeating: "long ", count: 20) })
        Self.open(&model, .down, .enter, .enter)
        let screen = ExploreView.render(model, width: width, height: height, now: Self.now)
        #expect(screen.lines.count == height)
        for line in screen.lines {
            #expect(DisplayWidth.of(line) == width, "\(line)")
        }
        #expect(screen.line(0).hasPrefix(" ciao explore [Browse]"))
        #expect(screen.line(height - 1).contains("q quit"))
    }

    @Test(arguments: [(1, 1), (10, 3), (20, 5), (40, 10)])
    func tinyTerminalsDrawWithoutTrapping(width: Int, height: Int) {
        var model = Self.model(services: 3)
        Self.open(&model, .down, .enter, .enter)
        #expect(ExploreView.render(model, width: width, height: height, now: Self.now).lines.count == height)
        Self.open(&model, .character("?"))
        _ = ExploreView.render(model, width: width, height: height, now: Self.now)
        Self.open(&model, .escape, .tab, .character("n"))
        #expect(ExploreView.render(model, width: width, height: height, now: Self.now).width == width)
    }

    /// In a container without a network the status line says why nothing comes, in both views.
    @Test func theStatusLineSaysWhenThereIsNoInterface() {
        var model = ExploreModel()
        let waiting = "waiting for a network interface…"
        #expect(!ExploreView.render(model, width: 80, height: 24, now: Self.now).line(23).contains(waiting))
        model.hasInterface = false
        #expect(ExploreView.render(model, width: 80, height: 24, now: Self.now).line(23).hasPrefix(waiting))
        Self.open(&model, .tab)
        #expect(ExploreView.render(model, width: 80, height: 24, now: Self.now).line(23).hasPrefix(waiting))
    }

    @Test func detailsShowEveryAddressAndTellTXTKindsApart() {
        var model = Self.model()
        Self.open(&model, .down, .enter, .enter)
        let text = ExploreView.render(model, width: 200, height: 60, now: Self.now.addingTimeInterval(5)).lines
            .joined(separator: "\n")
        for expected in [
            "Host: peer.local.", "Port: 9000", "198.18.0.2", "fe80::1c2b:3cff:fe4d:5e6f%civ0", "Interface: civ0",
            "TXT (4):", "k=v", "empty=  (empty)", "flag  (flag)", "bin=<00 ff 80>  (hex)", "(5 s ago)",
        ] {
            #expect(text.contains(expected), "\(expected)")
        }
    }

    @Test func longDetailsWrapAt80Columns() {
        var model = Self.model()
        Self.open(&model, .down, .enter, .enter)
        let text = ExploreView.render(model, width: 80, height: 24, now: Self.now).lines.joined()
        #expect(text.contains("fe80::1c2b:3cff:fe4d:5e6f%"))
        #expect(text.contains("civ0"))
    }

    @Test func searchFiltersTypesAndInstancesAsTyped() {
        var model = Self.model(services: 2, name: { ["Kitchen", "Garage"][$0] })
        Self.open(&model, .character("/"), .character("k"), .character("i"))
        #expect(model.visibleTypes == [Self.type])
        Self.open(&model, .enter, .enter)
        #expect(model.visibleInstances.map(\.service.name) == ["Kitchen"])
        let screen = ExploreView.render(model, width: 80, height: 24, now: Self.now).lines.joined()
        #expect(!screen.contains("Garage"))
        #expect(!screen.contains("_http._tcp"))
        Self.open(&model, .left, .escape)
        #expect(model.visibleTypes.count == 2)
    }

    @Test func removedInstancesAreMarkedThenExpire() {
        var model = Self.model()
        let service = Service(name: "Service 0", type: Self.type, interfaceIndex: 2)
        model.discovery(.removed(service), interfaceName: "civ0", at: Self.now)
        Self.open(&model, .down, .enter)
        let screen = ExploreView.render(model, width: 80, height: 24, now: Self.now).lines.joined()
        #expect(screen.contains("Service 0"))
        #expect(screen.contains("gone"))
        model.expire(at: Self.now.addingTimeInterval(ExploreModel.goneLifetime + 1))
        #expect(model.visibleInstances.isEmpty)
    }

    /// `r` asks about the instance shown, in the instances and details columns, and says so;
    /// not in the types column, nor for an instance already gone.
    @Test func rReconfirmsTheInstanceShown() {
        var model = Self.model(services: 2)
        #expect(model.handle(.character("r")).isEmpty)
        Self.open(&model, .down, .enter, .down)
        let second = Service(name: "Service 1", type: Self.type, interfaceIndex: 2)
        #expect(model.handle(.character("r")) == [.reconfirm(second)])
        let screen = ExploreView.render(model, width: 100, height: 24, now: Self.now).lines.joined()
        #expect(screen.contains("asking whether Service 1 is still there"))
        Self.open(&model, .enter)
        #expect(model.handle(.character("r")) == [.reconfirm(second)])
        model.discovery(.removed(second), interfaceName: "civ0", at: Self.now)
        #expect(model.handle(.character("r")).isEmpty)
        Self.open(&model, .left, .left, .character("/"))
        #expect(model.handle(.character("r")).isEmpty)
        #expect(model.search == "r")
    }

    @Test func hundredsOfServicesKeepTheSelectionInView() {
        var model = Self.model(services: 500)
        Self.open(&model, .down, .enter, .end)
        let last = model.visibleInstances.last!.service.name
        #expect(model.selectedInstance == model.visibleInstances.last!.service.id)
        let screen = ExploreView.render(model, width: 80, height: 24, now: Self.now)
        #expect(screen.lines.contains { $0.contains(">\(last)") })
        #expect(screen.line(1).contains("Instances (500)"))
    }

    @Test func controlCharactersFromTheNetworkNeverReachTheTerminal() {
        var model = Self.model(services: 1, name: { _ in "Evil\u{1B}[2J\u{07}name" })
        Self.open(&model, .down, .enter)
        let output = ExploreView.render(model, width: 80, height: 24, now: Self.now).rendering(from: nil, styled: false)
        #expect(!output.contains("\u{1B}[2J\u{07}"))
        #expect(output.contains("Evil\u{FFFD}[2J\u{FFFD}name"))
    }

    @Test func publishFormStartsEditsStopsAndRestarts() throws {
        var model = ExploreModel()
        Self.open(&model, .tab, .character("n"), .tab, .tab, .character("7"), .tab, .character(" "), .character("x"))
        let actions = model.handle(.enter)
        guard case .publish(let id, let configuration) = try #require(actions.first) else {
            Issue.record("no publish action: \(actions)")
            return
        }
        #expect(configuration.port == 7)
        #expect(configuration.mode == .externalPort)
        #expect(configuration.txtRecord.entries.map(\.key) == ["demo", "x"])
        model.publicationStarted(
            id, PublishedService(service: Service(name: "Ciao Demo 1 (2)", type: configuration.type), port: 7))
        #expect(
            ExploreView.render(model, width: 80, height: 24, now: Self.now).lines.joined().contains(
                "up as 'Ciao Demo 1 (2)'"))
        Self.open(&model, .character("e"), .backspace, .character("y"))
        let update = model.handle(.enter)
        #expect(
            update == [
                .updateTXT(
                    id: id,
                    try TXTRecord(entries: [
                        .init(key: "demo", value: .bytes(Data("1".utf8))), .init(key: "y", value: .flag),
                    ]))
            ])
        #expect(model.handle(.character("s")) == [.stop(id: id)])
        model.publicationStopped(id)
        #expect(model.handle(.character("s")) == [.publish(id: id, configuration)])
    }

    @Test func badFormInputIsRefusedWithAReason() {
        var model = ExploreModel()
        Self.open(&model, .tab, .character("n"), .tab, .tab, .character("x"))
        #expect(model.handle(.enter).isEmpty)
        #expect(model.form?.error?.contains("Port must be") == true)
    }

    @Test func quitComesFromQCtrlCAndEveryView() {
        var model = ExploreModel()
        #expect(model.handle(.character("q")) == [.quit])
        #expect(model.handle(.control("c")) == [.quit])
        Self.open(&model, .character("?"))
        #expect(ExploreView.render(model, width: 80, height: 24, now: Self.now).lines.joined().contains("Help"))
        #expect(model.handle(.character("q")) == [.quit])
        Self.open(&model, .tab, .character("n"))
        #expect(model.handle(.control("c")) == [.quit])
    }
}
