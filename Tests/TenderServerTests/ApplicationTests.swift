import Foundation
import Hummingbird
import HummingbirdTesting
import StellarBase
import TenderTesting
import Testing
import TenderServer

@Suite("The HTTP application")
struct ApplicationTests {
    /// Removed with everything in it when the test ends.
    let temporary = TemporaryDirectory("test")

    func configuration(passphrase: String = Network.standalone.passphrase) -> TenderConfiguration {
        let directory = temporary.file(UUID().uuidString)
        return TenderConfiguration(host: "127.0.0.1", port: 0, dataDirectory: directory, network: Network(passphrase: passphrase))
    }

    @Test func rootAnswersWithTheNetwork() async throws {
        let config = configuration(passphrase: "Test SDF Network ; September 2015")
        let app = try await buildApplication(config)
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/hal+json") == true)
                let body = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                #expect(body?["network_passphrase"] as? String == "Test SDF Network ; September 2015")
                #expect(body?["network_id"] as? String == Network.testnet.networkID.hex)
                #expect(body?["name"] as? String == "Tender")
            }
        }
        #expect(FileManager.default.fileExists(atPath: config.dataDirectory))
    }

    @Test func unknownRoutesAre404() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            try await client.execute(uri: "/no/such/thing", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func servesOverRealSockets() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.live) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }
}
