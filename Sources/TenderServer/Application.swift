import Foundation
import Hummingbird
import Logging
import StellarBase

/// The version Tender reports at `GET /`.
public let tenderVersion = "0.1.0"

/// Builds the HTTP application that `tender serve` runs and that the tests start.
///
/// So far it answers `GET /` with the server's identity and network; the ledger and the Horizon
/// API are added by later parts.
/// - Throws: when the data directory cannot be created.
public func buildApplication(
    _ configuration: TenderConfiguration,
    logger: Logger = Logger(label: "tender"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    let router = Router()
    router.get("/") { _, _ in
        RootResponse(
            name: "Tender", version: tenderVersion, networkPassphrase: configuration.network.passphrase,
            networkID: configuration.network.networkID.hex)
    }
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Tender"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The body of `GET /`.
struct RootResponse: ResponseEncodable {
    let name: String
    let version: String
    let networkPassphrase: String
    let networkID: String

    enum CodingKeys: String, CodingKey {
        case name, version
        case networkPassphrase = "network_passphrase"
        case networkID = "network_id"
    }
}
