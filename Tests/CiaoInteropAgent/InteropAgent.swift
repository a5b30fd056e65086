#if canImport(Glibc)
import Glibc
#endif
import Ciao
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries out the interop suite's commands with Ciao's public API and reports what happens.
actor InteropAgent {
    private var servers: [String: CiaoServer] = [:]
    private var sessions: [String: DiscoverySession] = [:]
    private var typeSessions: [String: ServiceTypeSession] = [:]
    private var quitting = false

    func handle(_ line: String) async {
        guard let command = JSONValue.parse(line), let name = command["cmd"]?.string else {
            emit(["event": "error", "message": .string("not a JSON command: \(line)")])
            return
        }
        let id = command["id"]?.string ?? ""
        do {
            switch name {
            case "publish": try publish(command, id: id)
            case "updateTXT": try await updateTXT(command, id: id)
            case "unpublish": await unpublish(id: id)
            case "browse": try await browse(command, id: id)
            case "stopBrowse": await sessions.removeValue(forKey: id)?.stop()
            case "reconfirm": try reconfirm(command, id: id)
            case "resolve": try resolve(command, id: id)
            case "types": types(command, id: id)
            case "stopTypes": typeSessions.removeValue(forKey: id)?.stop()
            case "stats": emit(["event": "stats", "id": .string(id), "fds": .int(Self.openFileDescriptors())])
            case "quit": await quit()
            // Exits without stopping anything: the runtime's exit hook must still say goodbye.
            case "exit": exit(0)
            default: emit(["event": "error", "id": .string(id), "message": .string("unknown command \(name)")])
            }
        } catch {
            emit(["event": "error", "id": .string(id), "message": .string("\(error)")])
        }
    }

    func quit() async {
        guard !quitting else { return }
        quitting = true
        for server in servers.values { await server.stop() }
        for session in sessions.values { await session.stop() }
        emit(["event": "bye"])
        exit(0)
    }

    // MARK: Commands

    private func publish(_ command: JSONValue, id: String) throws {
        let type = try ServiceType(command["type"]?.string ?? "")
        let port = UInt16(command["port"]?.int ?? 0)
        let listener = command["mode"]?.string == "listener" || port == 0
        // a unicast domain: "keyFile" (BIND's format), optional "server" and "host"
        let wideArea = try command["keyFile"]?.string.map { path in
            WideAreaOptions(
                key: try RegistrationKey(contentsOfFile: path), server: command["server"]?.string,
                hostName: command["host"]?.string)
        }
        let configuration = PublicationConfiguration(
            type: type, name: command["name"]?.string ?? "", domain: command["domain"]?.string ?? "", port: port,
            mode: listener ? .listener : .externalPort, allowsRenaming: command["rename"]?.bool ?? true,
            txtRecord: try Self.txtRecord(command["txt"]), subtypes: command["subtypes"]?.strings ?? [],
            wideArea: wideArea)
        // A new server gets one task for its whole life: the start, then its events (a task per
        // publication alive at once is most of the memory a burst of publications takes). A
        // server started again already has its events followed. The start is called from the
        // task itself, not through a method: one async frame less held by every waiting start.
        let isNew = servers[id] == nil
        let server = servers[id] ?? CiaoServer()
        servers[id] = server
        Task {
            do {
                _ = try await server.start(configuration)
            } catch {
                reportStartFailure(error, id: id)
            }
            if isNew { await self.follow(server, id: id) }
        }
    }

    /// Reports a failed start; success is reported by ``follow(_:id:)``.
    private func reportStartFailure(_ error: any Error, id: String) {
        let code: Int32 = if case .dnsService(let code) = error as? CiaoError { code } else { 0 }
        emit(["event": "publishFailed", "id": .string(id), "code": .int(Int(code)), "message": .string("\(error)")])
    }

    /// Reports every start (renames included) of a server; the server's event stream holds those
    /// that came before.
    private func follow(_ server: CiaoServer, id: String) async {
        for await event in server.events {
            if case .started(let published) = event {
                emit([
                    "event": "published", "id": .string(id), "name": .string(published.service.name),
                    "type": .string(published.service.type.rawValue), "port": .int(Int(published.port)),
                    "host": .string(published.hostName),
                ])
            }
        }
    }

    private func updateTXT(_ command: JSONValue, id: String) async throws {
        guard let server = servers[id] else { throw CiaoError.stopped }
        try await server.updateTXT(try Self.txtRecord(command["txt"]))
        emit(["event": "txtUpdated", "id": .string(id)])
    }

    private func unpublish(id: String) async {
        await servers.removeValue(forKey: id)?.stop()
        emit(["event": "unpublished", "id": .string(id)])
    }

    private func browse(_ command: JSONValue, id: String) async throws {
        let type = try ServiceType(command["type"]?.string ?? "")
        let resolutionTimeout = Duration.milliseconds(Int((command["resolutionTimeout"]?.double ?? 10) * 1000))
        let session = try await CiaoBrowser().browse(
            type: type, domain: command["domain"]?.string ?? "", resolutionTimeout: resolutionTimeout)
        sessions[id] = session
        emit(["event": "browsing", "id": .string(id)])
        Task {
            do {
                for try await event in session.events { self.report(event, id: id) }
            } catch {
                self.emit(["event": "error", "id": .string(id), "message": .string("\(error)")])
            }
        }
    }

    /// Has browse `id` reconfirm a service it found ("saved": the found event's JSON encoding of
    /// the `Service`), as an app does after a connection to it failed.
    private func reconfirm(_ command: JSONValue, id: String) throws {
        guard let session = sessions[id] else { throw CiaoError.stopped }
        let service = try JSONDecoder().decode(Service.self, from: Data((command["saved"]?.string ?? "").utf8))
        session.reconfirm(service)
        emit(Self.fields(of: service, event: "reconfirming", id: id))
    }

    /// Resolves by name and type, or a reference saved earlier ("saved": a found event's JSON
    /// encoding of the `Service`), as an app persisting a service would.
    private func resolve(_ command: JSONValue, id: String) throws {
        let service =
            if let saved = command["saved"]?.string {
                try JSONDecoder().decode(Service.self, from: Data(saved.utf8))
            } else {
                Service(
                    name: command["name"]?.string ?? "", type: try ServiceType(command["type"]?.string ?? ""),
                    domain: command["domain"]?.string ?? "")
            }
        let timeout = Duration.milliseconds(Int((command["timeout"]?.double ?? 10) * 1000))
        Task {
            do {
                let resolved = try await CiaoResolver.resolve(service, timeout: timeout)
                self.emit(Self.fields(of: resolved, event: "resolved", id: id))
            } catch {
                self.emit(["event": "resolveFailed", "id": .string(id), "message": .string("\(error)")])
            }
        }
    }

    private func types(_ command: JSONValue, id: String) {
        let session = ServiceTypeSession(domain: command["domain"]?.string ?? "")
        typeSessions[id] = session
        Task {
            do {
                for try await type in session.types {
                    self.emit(["event": "type", "id": .string(id), "type": .string(type.rawValue)])
                }
            } catch {
                self.emit(["event": "error", "id": .string(id), "message": .string("\(error)")])
            }
        }
    }

    // MARK: Output

    private func report(_ event: DiscoveryEvent, id: String) {
        switch event {
        case .started: break
        case .found(let service):
            var fields = Self.fields(of: service, event: "found", id: id)
            // What an app would persist: the Codable Service (name, type, domain, interface).
            fields["saved"] = (try? JSONEncoder().encode(service)).map { .string(String(decoding: $0, as: UTF8.self)) }
            emit(fields)
        case .removed(let service): emit(Self.fields(of: service, event: "removed", id: id))
        case .resolved(let resolved): emit(Self.fields(of: resolved, event: "resolved", id: id))
        case .resolutionFailed(let service, let error):
            var fields = Self.fields(of: service, event: "resolutionFailed", id: id)
            fields["message"] = .string("\(error)")
            emit(fields)
        case .stopped: emit(["event": "stopped", "id": .string(id)])
        }
    }

    private static func fields(of service: Service, event: String, id: String) -> [String: JSONValue] {
        [
            "event": .string(event), "id": .string(id), "name": .string(service.name),
            "type": .string(service.type.rawValue),
            "domain": .string(service.domain), "interface": .int(Int(service.interfaceIndex)),
        ]
    }

    private static func fields(of resolved: ResolvedService, event: String, id: String) -> [String: JSONValue] {
        var fields = fields(of: resolved.service, event: event, id: id)
        fields["host"] = .string(resolved.hostName)
        fields["port"] = .int(Int(resolved.port))
        fields["addresses"] = .array(resolved.addresses.map(JSONValue.string))
        var txt: [String: JSONValue] = [:]
        for (key, value) in resolved.txtRecord.values {
            switch value {
            case .flag: txt[key] = .null
            case .bytes(let data): txt[key] = .string(hex(data))
            }
        }
        fields["txt"] = .object(txt)
        return fields
    }

    /// Writes one event line with its time, `t`, to standard output.
    private func emit(_ fields: [String: JSONValue]) {
        var fields = fields
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        fields["t"] = .double(Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
        guard let data = JSONValue.object(fields).serialized else { return }
        StandardStream.output.write(data + [UInt8(ascii: "\n")])
    }

    // MARK: Helpers

    /// `{"key": null}` is a flag; `{"key": "hex"}` a value given as hex bytes.
    private static func txtRecord(_ json: JSONValue?) throws -> TXTRecord {
        guard case .object(let entries)? = json else { return .empty }
        var values: [String: TXTRecord.Value] = [:]
        for (key, value) in entries {
            if let hex = value.string {
                guard let bytes = bytes(fromHex: hex) else {
                    throw CiaoError.invalidTXTRecord("\(key): \(hex) is not hex")
                }
                values[key] = .bytes(Data(bytes))
            } else {
                values[key] = .flag
            }
        }
        return try TXTRecord(values)
    }

    /// Lowercase hex digits, two per byte.
    private static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    private static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[start..<start + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }

    private static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}
