import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StellarBase
import TenderServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the Tender server.",
        discussion: """
            Listens on --host:--port (127.0.0.1:8000 by default) and keeps its data under --data. \
            Every flag can also be set with an environment variable: TENDER_HOST, TENDER_PORT, \
            TENDER_DATA, TENDER_PASSPHRASE. Stop it with Ctrl-C (SIGINT) or SIGTERM.
            """
    )

    @Option(help: "The address to listen on. [env: TENDER_HOST] (default: 127.0.0.1)")
    var host: String?

    @Option(help: "The TCP port to listen on; 0 picks a free one. [env: TENDER_PORT] (default: 8000)")
    var port: Int?

    @Option(help: "The directory for Tender's data, created if missing. [env: TENDER_DATA] (default: .tender)")
    var data: String?

    @Option(help: "The network passphrase. [env: TENDER_PASSPHRASE] (default: \"Standalone Network ; February 2017\")")
    var passphrase: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let portText = environment["TENDER_PORT"]
        let resolvedPort: Int
        if let port {
            resolvedPort = port
        } else if let portText {
            guard let parsed = Int(portText) else { throw CommandFailure("TENDER_PORT=\(portText) is not a port number") }
            resolvedPort = parsed
        } else {
            resolvedPort = 8000
        }
        guard (0...65535).contains(resolvedPort) else { throw CommandFailure("the port \(resolvedPort) is not between 0 and 65535") }
        let configuration = TenderConfiguration(
            host: host ?? environment["TENDER_HOST"] ?? "127.0.0.1",
            port: resolvedPort,
            dataDirectory: data ?? environment["TENDER_DATA"] ?? ".tender",
            network: Network(passphrase: passphrase ?? environment["TENDER_PASSPHRASE"] ?? Network.standalone.passphrase))

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        let app = try makeApplication(configuration)
        do {
            try await app.runService()
        } catch {
            throw CommandFailure("the server stopped: \(error)")
        }
    }

    private func makeApplication(_ configuration: TenderConfiguration) throws -> some ApplicationProtocol {
        do {
            return try buildApplication(configuration) { port in
                let banner = """
                    Tender \(tenderVersion) is listening on http://\(configuration.host):\(port)
                    network passphrase: \(configuration.network.passphrase)
                    data directory:     \(configuration.dataDirectory)

                    """
                FileHandle.standardOutput.write(Data(banner.utf8))
            }
        } catch {
            throw CommandFailure("cannot use the data directory \(configuration.dataDirectory): \(error.localizedDescription)")
        }
    }
}
