import Ciao
import Foundation

/// Carries out the interop suite's commands with Ciao's public API and reports what happens.
actor InteropAgent {
    private var servers: [String: CiaoServer] = [:]
    private var sessions: [String: DiscoverySession] = [:]
    private var typeSessions: [String: ServiceTypeSession] = [:]
    private var quitting = false

    func handle(_ line: String) async {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)), let command = object as? [String: Any],
            let name = command["cmd"] as? String
        else {
            emit(["event": "error", "message": "not a JSON command: \(line)"])
            return
        }
        let id = command["id"] as? String ?? ""
        do {
            switch name {
            case "publish": try publish(command, id: id)
            case "updateTXT": try await updateTXT(command, id: id)
            case "unpublish": await unpublish(id: id)
            case "browse": try await browse(command, id: id)
            case "stopBrowse": await sessions.removeValue(forKey: id)?.stop()
            case "resolve": try resolve(command, id: id)
            case "types": types(id: id)
            case "stopTypes": typeSessions.removeValue(forKey: id)?.stop()
            case "stats": emit(["event": "stats", "id": id, "fds": Self.openFileDescriptors()])
            case "quit": await quit()
            // Exits without stopping anything: the runtime's exit hook must still say goodbye.
            case "exit": exit(0)
            default: emit(["event": "error", "id": id, "message": "unknown command \(name)"])
            }
        } catch {
            emit(["event": "error", "id": id, "message": "\(error)"])
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

    private func publish(_ command: [String: Any], id: String) throws {
        let type = try ServiceType(command["type"] as? String ?? "")
        let port = UInt16(command["port"] as? Int ?? 0)
        let listener = (command["mode"] as? String) == "listener" || port == 0
        let configuration = PublicationConfiguration(
            type: type, name: command["name"] as? String ?? "", port: port, mode: listener ? .listener : .externalPort,
            allowsRenaming: command["rename"] as? Bool ?? true, txtRecord: try Self.txtRecord(command["txt"]),
            subtypes: command["subtypes"] as? [String] ?? [])
        let server = servers[id] ?? CiaoServer()
        if servers[id] == nil {
            servers[id] = server
            Task { await self.follow(server, id: id) }
        }
        Task {
            do {
                _ = try await server.start(configuration)
            } catch let error as CiaoError {
                let code: Int32 = if case .dnsService(let code) = error { code } else { 0 }
                self.emit(["event": "publishFailed", "id": id, "code": Int(code), "message": "\(error)"])
            } catch {
                self.emit(["event": "publishFailed", "id": id, "code": 0, "message": "\(error)"])
            }
        }
    }

    /// Reports every start (renames included) of a server.
    private func follow(_ server: CiaoServer, id: String) async {
        for await event in server.events {
            if case .started(let published) = event {
                emit([
                    "event": "published", "id": id, "name": published.service.name, "type": published.service.type.rawValue,
                    "port": Int(published.port), "host": published.hostName,
                ])
            }
        }
    }

    private func updateTXT(_ command: [String: Any], id: String) async throws {
        guard let server = servers[id] else { throw CiaoError.stopped }
        try await server.updateTXT(try Self.txtRecord(command["txt"]))
        emit(["event": "txtUpdated", "id": id])
    }

    private func unpublish(id: String) async {
        await servers.removeValue(forKey: id)?.stop()
        emit(["event": "unpublished", "id": id])
    }

    private func browse(_ command: [String: Any], id: String) async throws {
        let type = try ServiceType(command["type"] as? String ?? "")
        let session = try await CiaoBrowser().browse(type: type)
        sessions[id] = session
        emit(["event": "browsing", "id": id])
        Task {
            do {
                for try await event in session.events { self.report(event, id: id) }
            } catch {
                self.emit(["event": "error", "id": id, "message": "\(error)"])
            }
        }
    }

    /// Resolves by name and type, or a reference saved earlier ("saved": a found event's JSON
    /// encoding of the `Service`), as an app persisting a service would.
    private func resolve(_ command: [String: Any], id: String) throws {
        let service =
            if let saved = command["saved"] as? String {
                try JSONDecoder().decode(Service.self, from: Data(saved.utf8))
            } else {
                Service(name: command["name"] as? String ?? "", type: try ServiceType(command["type"] as? String ?? ""))
            }
        let timeout = Duration.milliseconds(Int((command["timeout"] as? Double ?? 10) * 1000))
        Task {
            do {
                let resolved = try await CiaoResolver.resolve(service, timeout: timeout)
                self.emit(Self.fields(of: resolved, event: "resolved", id: id))
            } catch {
                self.emit(["event": "resolveFailed", "id": id, "message": "\(error)"])
            }
        }
    }

    private func types(id: String) {
        let session = ServiceTypeSession()
        typeSessions[id] = session
        Task {
            do {
                for try await type in session.types { self.emit(["event": "type", "id": id, "type": type.rawValue]) }
            } catch {
                self.emit(["event": "error", "id": id, "message": "\(error)"])
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
            fields["saved"] = (try? JSONEncoder().encode(service)).map { String(decoding: $0, as: UTF8.self) }
            emit(fields)
        case .removed(let service): emit(Self.fields(of: service, event: "removed", id: id))
        case .resolved(let resolved): emit(Self.fields(of: resolved, event: "resolved", id: id))
        case .resolutionFailed(let service, let error):
            var fields = Self.fields(of: service, event: "resolutionFailed", id: id)
            fields["message"] = "\(error)"
            emit(fields)
        case .stopped: emit(["event": "stopped", "id": id])
        }
    }

    private static func fields(of service: Service, event: String, id: String) -> [String: Any] {
        [
            "event": event, "id": id, "name": service.name, "type": service.type.rawValue, "domain": service.domain,
            "interface": Int(service.interfaceIndex),
        ]
    }

    private static func fields(of resolved: ResolvedService, event: String, id: String) -> [String: Any] {
        var fields = fields(of: resolved.service, event: event, id: id)
        fields["host"] = resolved.hostName
        fields["port"] = Int(resolved.port)
        fields["addresses"] = resolved.addresses
        var txt: [String: Any] = [:]
        for (key, value) in resolved.txtRecord.values {
            switch value {
            case .flag: txt[key] = NSNull()
            case .bytes(let data): txt[key] = data.map { String(format: "%02x", $0) }.joined()
            }
        }
        fields["txt"] = txt
        return fields
    }

    private func emit(_ fields: [String: Any]) {
        var fields = fields
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        fields["t"] = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    // MARK: Helpers

    /// `{"key": null}` is a flag; `{"key": "hex"}` a value given as hex bytes.
    private static func txtRecord(_ json: Any?) throws -> TXTRecord {
        guard let entries = json as? [String: Any] else { return .empty }
        var values: [String: TXTRecord.Value] = [:]
        for (key, value) in entries {
            if let hex = value as? String {
                guard let bytes = bytes(fromHex: hex) else { throw CiaoError.invalidTXTRecord("\(key): \(hex) is not hex") }
                values[key] = .bytes(Data(bytes))
            } else {
                values[key] = .flag
            }
        }
        return try TXTRecord(values)
    }

    private static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[start..<start + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    private static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}
