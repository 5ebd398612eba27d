import Foundation
import Hummingbird
import Ledger
import LedgerService
import Logging
import ServiceLifecycle
import StellarBase
import Store

/// The version Tender reports at `GET /`.
public let tenderVersion = "0.1.0"

/// Builds the HTTP application that `tender serve` runs and that the tests start: opens (or
/// creates at genesis) the ledger under the data directory, runs its writer as a service, and
/// serves `GET /` and `POST /transactions`.
/// - Throws: when the data directory or the ledger database cannot be opened.
public func buildApplication(
    _ configuration: TenderConfiguration,
    logger: Logger = Logger(label: "tender"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
    let store = try SQLiteLedgerStore(path: configuration.databasePath)
    let writer = try LedgerWriter(
        store: store,
        configuration: .init(network: configuration.network, closeInterval: configuration.closeInterval, batchLimit: configuration.batchLimit),
        logger: logger, now: { UInt64(Date().timeIntervalSince1970) })
    let router = Router()
    router.get("/") { _, _ in
        let header = await writer.header
        return RootResponse(
            name: "Tender", version: tenderVersion, networkPassphrase: configuration.network.passphrase,
            networkID: configuration.network.networkID.hex, latestLedger: header.sequence,
            currentProtocolVersion: header.protocolVersion)
    }
    TransactionRoutes(writer: writer, timeout: configuration.submissionTimeout).register(on: router)
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Tender"),
        services: [LedgerWriterService(writer: writer)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// Runs the ledger writer's close loop until graceful shutdown, then lets it finish the ledger
/// in flight.
struct LedgerWriterService: Service {
    let writer: LedgerWriter

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await writer.run()
        }
    }
}

/// The body of `GET /`.
struct RootResponse: ResponseEncodable {
    let name: String
    let version: String
    let networkPassphrase: String
    let networkID: String
    let latestLedger: UInt32
    let currentProtocolVersion: UInt32

    enum CodingKeys: String, CodingKey {
        case name, version
        case networkPassphrase = "network_passphrase"
        case networkID = "network_id"
        case latestLedger = "history_latest_ledger"
        case currentProtocolVersion = "current_protocol_version"
    }
}
