import ArgumentParser
import Foundation
import Ledger
import NIOPosix
import StellarBase

/// Sets up a market on a running `tender serve` for read benchmarks: order books and paths
/// with real work behind them.
struct MarketBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "market",
        abstract: "Create a market of offers on a running `tender serve` and print URLs that read it.",
        discussion: """
            The root account (so the server must be a local network) funds an issuer of GOLD, \
            SILVER and COPPER and a maker, who places --offers offers in each market of the chain \
            XLM → GOLD → SILVER → COPPER at spread prices. Prints one path per line, for a load \
            generator: the order books of the three markets and strict-send and strict-receive \
            paths across the chain (three hops).
            """
    )

    @Option(help: "The server's base URL.")
    var url = "http://127.0.0.1:8000"

    @Option(help: "Offers in each of the three markets (1 to 90).")
    var offers = 30

    func run() async throws {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host else {
            throw CommandFailure("--url must be http://HOST:PORT, not \(url)")
        }
        guard (1...90).contains(offers) else { throw CommandFailure("--offers must be 1 to 90") }
        let connection = try await LoadConnection.connect(host: host, port: components.port ?? 80, group: MultiThreadedEventLoopGroup.singleton)
        let root = try await connection.send(.GET, "/")
        guard root.status == 200, let passphrase = SubmitBench.field(root.body, "network_passphrase") else { throw CommandFailure("GET / answered \(root.status)") }
        let network = Network(passphrase: passphrase)
        let rootKey = LedgerState.rootKeyPair(network: network)
        var generator = SystemRandomNumberGenerator()
        let issuer = try KeyPair(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let maker = try KeyPair(seed: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let assets = try ["GOLD", "SILVER", "COPPER"].map { try Asset(code: $0, issuer: issuer.accountID) }

        func submit(_ source: KeyPair, _ operations: [StellarBase.Operation], signers: [KeyPair]) async throws {
            guard let sequence = try await SubmitBench.sequence(of: source.accountID, connection) else { throw CommandFailure("\(source.accountID.strKey) does not exist") }
            let tx = Transaction(sourceAccount: .ed25519(source.accountID), fee: UInt32(100 * operations.count), sequenceNumber: sequence + 1, operations: operations)
            let answer = try await connection.send(.POST, "/transactions", form: SubmitBench.form(tx.signed(by: signers, on: network)))
            guard answer.status == 200 else { throw CommandFailure("setting up the market failed: \(answer.status) \(answer.body.prefix(300))") }
        }
        let million = 1_000_000 * Amount.stroopsPerUnit
        try await submit(rootKey, [issuer, maker].map { StellarBase.Operation(.createAccount(CreateAccountOperation(destination: $0.accountID, startingBalance: million))) }, signers: [rootKey])
        try await submit(maker, assets.map { StellarBase.Operation(.changeTrust(ChangeTrustOperation(asset: $0))) }, signers: [maker])
        try await submit(issuer, assets.map { StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(maker.accountID), asset: $0, amount: million))) }, signers: [issuer])
        // Each market: the maker sells the next asset of the chain for the one before, at
        // prices from 1 to 1 + (offers-1)/100, so a large payment crosses many offers.
        var previous = Asset.native
        for asset in assets {
            let placing = (0..<offers).map { index in
                StellarBase.Operation(.manageSellOffer(ManageSellOfferOperation(
                    selling: asset, buying: previous, amount: 1_000 * Amount.stroopsPerUnit, price: Price(n: Int32(100 + index), d: 100))))
            }
            try await submit(maker, placing, signers: [maker])
            previous = asset
        }
        await connection.close()

        func assetQuery(_ prefix: String, _ asset: Asset) -> String {
            guard let code = asset.code, let issuer = asset.issuer else { return "\(prefix)_asset_type=native" }
            return "\(prefix)_asset_type=\(asset.typeName)&\(prefix)_asset_code=\(code)&\(prefix)_asset_issuer=\(issuer.strKey)"
        }
        let chain = [Asset.native] + assets
        for index in 1..<chain.count {
            print("/order_book?\(assetQuery("selling", chain[index]))&\(assetQuery("buying", chain[index - 1]))&limit=20")
        }
        let copper = "COPPER:\(issuer.accountID.strKey)"
        print("/paths/strict-send?source_asset_type=native&source_amount=5000&destination_assets=\(copper)")
        print("/paths/strict-receive?source_assets=native&\(assetQuery("destination", assets[2]))&destination_amount=5000")
    }
}
