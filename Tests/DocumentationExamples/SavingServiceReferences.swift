import Ciao
import Foundation

func reference(to service: Service) throws -> Data {
    // Name, type and domain only: the interface index may name another interface after a reboot.
    let reference = Service(name: service.name, type: service.type, domain: service.domain)
    return try JSONEncoder().encode(reference)
}

func reconnect(to saved: Data) async throws -> ResolvedService {
    let reference = try JSONDecoder().decode(Service.self, from: saved)
    return try await CiaoResolver.resolve(reference)  // today's host, port and addresses
}
