import StellarBase

/// Everything `tender serve` needs to start, after flags, environment and defaults are merged.
public struct TenderConfiguration: Sendable {
    /// The address to listen on; 127.0.0.1 unless asked otherwise.
    public var host: String
    /// The TCP port; 0 picks a free one (tests use this).
    public var port: Int
    /// The directory that holds the ledger database.
    public var dataDirectory: String
    /// The network the ledger belongs to.
    public var network: Network

    public init(
        host: String = "127.0.0.1", port: Int = 8000, dataDirectory: String = ".tender",
        network: Network = .standalone
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.network = network
    }
}
