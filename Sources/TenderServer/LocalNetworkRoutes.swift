import GatewayCore
import Hummingbird
import Ledger
import LedgerService
import Logging
import StellarBase
import Store

/// What a local network offers besides Horizon: friendbot for XLM, the test anchor's assets,
/// and the anchor's stellar.toml.
struct LocalNetworkRoutes: Sendable {
    let horizon: HorizonRoutes
    let anchor: TestAnchor
    let friendbot: LedgerDesk
    let anchorDesks: [String: LedgerDesk]
    /// What friendbot gives a new account, as on a quickstart network: 10,000 XLM.
    static let friendbotStartingBalance: Int64 = 10_000 * Amount.stroopsPerUnit

    init(horizon: HorizonRoutes, writer: LedgerWriter, anchor: TestAnchor) {
        self.horizon = horizon
        self.anchor = anchor
        let limit = horizon.configuration.fundingQueueLimit
        friendbot = LedgerDesk(writer: writer, keyPair: LedgerState.rootKeyPair(network: writer.configuration.network), maxPending: limit)
        anchorDesks = Dictionary(uniqueKeysWithValues: anchor.currencies.map { ($0.code, LedgerDesk(writer: writer, keyPair: $0.keyPair, maxPending: limit)) })
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/friendbot") { request, _ in await fund(request) }
        router.post("/friendbot") { request, _ in await fund(request) }
        router.get("/.well-known/stellar.toml") { request, _ in
            let base = horizon.resources(for: request).base
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; charset=utf-8", .accessControlAllowOrigin: "*"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: anchor.stellarToml(network: horizon.configuration.network, horizonURL: base))))
        }
    }

    /// `GET /friendbot?addr=G...` creates the account with 10,000 XLM; with `&asset=CODE` the
    /// test anchor pays 1,000 of its asset to an account that trusts it.
    private func fund(_ request: Request) async -> Response {
        await horizon.respond(request) { resources in
            let query = HorizonQuery(request)
            guard let addressText = query["addr"] else { throw ProblemError.invalid("addr", "addr (the account to fund, G...) is required") }
            let address = try HorizonQuery.accountID(addressText, field: "addr")
            let reader = horizon.reader
            let submission: SubmissionResult
            if let code = query["asset"] {
                guard let currency = anchor.currency(code: code), let desk = anchorDesks[currency.code] else {
                    throw ProblemError.invalid("asset", "the test anchor hands out \(anchor.currencies.map(\.code).joined(separator: ", ")), not \(code)")
                }
                guard let account = try await reader.account(address) else {
                    throw ProblemError(.badRequest("the account \(address.strKey) does not exist; fund it with XLM first (GET /friendbot?addr=\(address.strKey))", field: "addr"))
                }
                guard account.trustLines.contains(where: { $0.asset == currency.asset }) else {
                    throw ProblemError(.badRequest("the account \(address.strKey) does not trust \(currency.code):\(currency.keyPair.accountID.strKey); add a trustline first", field: "addr"))
                }
                submission = try await desk.submit(StellarBase.Operation(.payment(PaymentOperation(destination: .ed25519(address), asset: currency.asset, amount: TestAnchor.grant))))
            } else {
                guard try await !reader.accountExists(address) else {
                    throw ProblemError(.badRequest("the account \(address.strKey) is already funded", field: "addr"))
                }
                submission = try await friendbot.submit(StellarBase.Operation(.createAccount(CreateAccountOperation(destination: address, startingBalance: Self.friendbotStartingBalance))))
            }
            switch submission {
            case .applied(let stored) where stored.result.isSuccess:
                return try horizon.json(resources.transaction(stored))
            case .applied(let stored):
                throw ProblemError(.fundingFailed(stored.result, address: address))
            case .rejected(let result):
                throw ProblemError(.fundingFailed(result, address: address))
            }
        }
    }
}

extension Problem {
    /// Friendbot's transaction failed (the account was funded meanwhile, a trustline is full...).
    static func fundingFailed(_ result: TransactionResult, address: AccountID) -> Problem {
        let operations = result.outcome.operationResults?.map(\.name)
        let reason = operations?.first { $0 != "op_success" } ?? result.code.name
        let detail = reason == "op_already_exists" ? "the account \(address.strKey) is already funded" : "funding \(address.strKey) failed: \(reason)"
        return Problem(
            type: "https://stellar.org/horizon-errors/bad_request", title: "Bad Request", status: 400, detail: detail,
            extras: [
                ("invalid_field", .string("addr")), ("reason", .string(detail)), ("result_xdr", .string(result.xdrBase64)),
                ("result_codes", resultCodes(result)),
            ])
    }
}
