import TenderJSON
import Foundation
import Hummingbird
import Ledger
import LedgerService
import Logging
import ServiceLifecycle
import StellarBase
import Store

/// Horizon's read API: accounts, ledgers, transactions, operations, payments, offers, order
/// books, paths and fee stats, with HAL paging and server-sent event streams. Reads come from the
/// committed ledgers in SQLite, so nothing is shown before it is durable; order books and paths
/// come from the writer's state.
struct HorizonRoutes: Sendable {
    /// Committed history and entries; the routes know only the protocol, not the database.
    let reader: any LedgerReader
    /// The last committed ledger and its order books: the writer's, or on a follower node the
    /// ledgers it has read from the shared database.
    let commits: LedgerCommits
    let configuration: TenderConfiguration
    let logger: Logger
    let accountCache: AccountCache
    let metrics: ServerMetrics
    /// An account as committed, from the writer's memory where it knows it (nil on a node
    /// without a writer of its own store): the store is read only for what memory cannot give.
    var committedAccount: (@Sendable (AccountID) async -> CommittedAccount)?
    /// Paces path searches when ``TenderConfiguration/maxPathFindingRequests`` is set.
    let pathFinding: PathFindingLimiter<ContinuousClock>?

    /// How long a quiet stream waits before sending a keep-alive comment.
    static let streamKeepAlive: Duration = .seconds(10)

    /// An account as `GET /accounts/{id}` shows it: from memory when memory can give all of it
    /// (trustlines and signers, no offers, data or pool shares), else from the store. Memory
    /// holds the whole state, so this read costs the same at ten million accounts as at ten; the
    /// store's grows with its indexes.
    func account(_ id: AccountID) async throws -> AccountRecord? {
        switch await committedAccount?(id) ?? .unknown {
        case .record(let record): record
        case .missing: nil
        case .unknown: try await reader.account(id)
        }
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("/accounts/:account") { request, context in
            await respond(request) { resources in
                let address = context.parameters.get("account") ?? ""
                if let body = accountCache.body(for: address, base: resources.base) { return json(body) }
                let id = try HorizonQuery.accountID(address, field: "account_id")
                let readAt = commits.latest
                guard let record = try await account(id) else { throw ProblemError(.notFound) }
                // The address decoded, so it is the id's canonical text.
                let body = ByteBuffer(bytes: resources.accountBytes(record, address: address))
                accountCache.store(body, for: address, base: resources.base, readAt: readAt)
                return json(body)
            }
        }
        router.get("/accounts/:account/transactions") { request, context in
            await collection(request, path: "/accounts/\(context.parameters.get("account") ?? "")/transactions", tokenOf: \.id) { query, page in
                let id = try accountParameter(context)
                return try await reader.transactions(page, filter: try query.transactionFilter(account: id))
            } render: { $0.transaction($1) }
        }
        for kind in ["operations", "payments"] {
            router.get("/accounts/:account/\(kind)") { request, context in
                let join = Self.joinsTransactions(request)
                return await collection(request, path: "/accounts/\(context.parameters.get("account") ?? "")/\(kind)", tokenOf: \.id) { query, page in
                    try query.checkJoin()
                    let id = try accountParameter(context)
                    return try await reader.operations(page, filter: try query.operationFilter(account: id, paymentsOnly: kind == "payments"))
                } render: { Self.operation($0, $1, join: join) }
            }
            router.get("/\(kind)") { request, _ in
                let join = Self.joinsTransactions(request)
                return await collection(request, path: "/\(kind)", tokenOf: \.id) { query, page in
                    try query.checkJoin()
                    return try await reader.operations(page, filter: try query.operationFilter(account: try query.accountID("for_account"), paymentsOnly: kind == "payments"))
                } render: { Self.operation($0, $1, join: join) }
            }
            router.get("/transactions/:hash/\(kind)") { request, context in
                let join = Self.joinsTransactions(request)
                return await collection(request, path: "/transactions/\(context.parameters.get("hash") ?? "")/\(kind)", tokenOf: \.id) { query, page in
                    try query.checkJoin()
                    let hash = try hashParameter(context)
                    return try await reader.operations(page, filter: OperationFilter(transactionHash: hash, paymentsOnly: kind == "payments", includeFailed: true))
                } render: { Self.operation($0, $1, join: join) }
            }
        }
        router.get("/ledgers/:sequence/transactions") { request, context in
            await collection(request, path: "/ledgers/\(context.parameters.get("sequence") ?? "")/transactions", tokenOf: \.id) { query, page in
                let sequence = try ledgerParameter(context)
                return try await Self.inLedger(sequence, page, id: \.id) { try await reader.transactions($0, account: nil, includeFailed: try query.includeFailed()) }
            } render: { $0.transaction($1) }
        }
        for kind in ["operations", "payments"] {
            router.get("/ledgers/:sequence/\(kind)") { request, context in
                let join = Self.joinsTransactions(request)
                return await collection(request, path: "/ledgers/\(context.parameters.get("sequence") ?? "")/\(kind)", tokenOf: \.id) { query, page in
                    try query.checkJoin()
                    let sequence = try ledgerParameter(context)
                    let filter = OperationFilter(paymentsOnly: kind == "payments", includeFailed: try query.includeFailed())
                    return try await Self.inLedger(sequence, page, id: \.id) { try await reader.operations($0, filter: filter) }
                } render: { Self.operation($0, $1, join: join) }
            }
        }
        router.get("/accounts/:account/data/:key") { request, context in
            await respond(request) { _ in
                let id = try accountParameter(context)
                let key = context.parameters.get("key")?.removingPercentEncoding ?? ""
                guard let record = try await reader.account(id), let entry = record.data.first(where: { $0.name == Array(key.utf8) }) else {
                    throw ProblemError(.notFound)
                }
                if request.headers[.accept]?.contains("application/octet-stream") ?? false {
                    return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: entry.value)))
                }
                return try json(.object([("value", .string(Base64.encode(entry.value)))] + (entry.sponsor.map { [("sponsor", .string($0.strKey))] } ?? [])))
            }
        }
        router.get("/accounts/:account/offers") { request, context in
            await collection(request, path: "/accounts/\(context.parameters.get("account") ?? "")/offers", tokenOf: { $0.entry.offerID }) { _, page in
                try await reader.offers(page, seller: try accountParameter(context), selling: nil, buying: nil, sponsor: nil)
            } render: { $0.offer($1) }
        }
        router.get("/transactions") { request, _ in
            await collection(request, path: "/transactions", tokenOf: \.id) { query, page in
                try await reader.transactions(page, filter: try query.transactionFilter(account: try query.accountID("for_account")))
            } render: { $0.transaction($1) }
        }
        router.get("/transactions/:hash") { request, context in
            await respond(request) { resources in
                let hash = try hashParameter(context)
                guard let stored = try await reader.transaction(hash: hash) else { throw ProblemError(.notFound) }
                return try json(resources.transaction(stored))
            }
        }
        router.get("/ledgers") { request, _ in
            await collection(request, path: "/ledgers", tokenOf: \.pagingToken) { _, page in
                try await reader.ledgers(page)
            } render: { $0.ledger($1) }
        }
        router.get("/ledgers/:sequence") { request, context in
            await respond(request) { resources in
                guard let sequence = context.parameters.get("sequence").flatMap({ UInt32($0) }), sequence > 0 else {
                    throw ProblemError.invalid("sequence", "a ledger sequence is a positive whole number")
                }
                guard let record = try await reader.ledger(sequence) else { throw ProblemError(.notFound) }
                return try json(resources.ledger(record))
            }
        }
        router.get("/operations/:id") { request, context in
            await respond(request) { resources in
                guard let id = context.parameters.get("id").flatMap({ Int64($0) }), id > 0 else {
                    throw ProblemError.invalid("id", "an operation id is a positive whole number")
                }
                guard let record = try await reader.operation(id) else { throw ProblemError(.notFound) }
                return try json(resources.operation(record))
            }
        }
        router.get("/offers") { request, _ in
            await collection(request, path: "/offers", tokenOf: { $0.entry.offerID }) { query, page in
                try await reader.offers(
                    page, seller: try query.accountID("seller"), selling: try query.asset("selling"), buying: try query.asset("buying"),
                    sponsor: try query.accountID("sponsor"))
            } render: { $0.offer($1) }
        }
        router.get("/offers/:id") { request, context in
            await respond(request) { resources in
                guard let id = context.parameters.get("id").flatMap({ Int64($0) }), id > 0 else {
                    throw ProblemError.invalid("id", "an offer id is a positive whole number")
                }
                guard let offer = try await reader.offer(id) else { throw ProblemError(.notFound) }
                return try json(resources.offer(offer))
            }
        }
        router.get("/order_book") { request, _ in
            await respond(request) { _ in try await Self.atLowPriority { try await orderBook(HorizonQuery(request)) } }
        }
        router.get("/paths/strict-send") { request, _ in
            await respond(request) { resources in try await Self.atLowPriority { try await strictSendPaths(HorizonQuery(request), resources) } }
        }
        // The legacy `/paths` is strict-receive, as Horizon still serves it.
        router.get("/paths") { request, _ in
            await respond(request) { resources in try await Self.atLowPriority { try await strictReceivePaths(HorizonQuery(request), resources) } }
        }
        router.get("/paths/strict-receive") { request, _ in
            await respond(request) { resources in try await Self.atLowPriority { try await strictReceivePaths(HorizonQuery(request), resources) } }
        }
        router.get("/assets") { request, _ in
            await keyedCollection(request, path: "/assets", cursor: HorizonQuery.assetCursor, tokenOf: \AssetStats.pagingToken) { query, page in
                try await reader.assets(page, code: try query.assetCode(), issuer: try query.accountID("asset_issuer"))
            } render: { resources, records in
                var issuers: [AccountID: AccountEntry?] = [:]
                for issuer in Set(records.compactMap(\.asset.issuer)) { issuers[issuer] = try await reader.account(issuer)?.account }
                return records.map { resources.asset($0, issuer: $0.asset.issuer.flatMap { issuers[$0] ?? nil }) }
            }
        }
        router.get("/accounts") { request, _ in
            await keyedCollection(request, path: "/accounts", cursor: { text throws(ProblemError) in try HorizonQuery.accountID(text, field: "cursor") }, tokenOf: { (record: AccountRecord) in
                record.account.accountID.strKey
            }) { query, page in
                let filters = ["signer", "asset", "sponsor", "liquidity_pool"].filter { !(query[$0] ?? "").isEmpty }
                guard filters.count == 1 else {
                    throw ProblemError.invalid("signer", "exactly one of signer, asset, sponsor and liquidity_pool is required, \(filters.isEmpty ? "none was" : "\(filters.count) were") given")
                }
                if let signer = try query.accountID("signer") { return try await reader.accounts(signedBy: signer, page) }
                if let sponsor = try query.accountID("sponsor") { return try await reader.accounts(sponsoredBy: sponsor, page) }
                if let pool = query["liquidity_pool"], !pool.isEmpty {
                    return try await reader.accounts(inPool: try Self.poolID(pool, field: "liquidity_pool"), page)
                }
                guard let text = query["asset"], !text.isEmpty else { throw ProblemError.invalid("asset", "asset is an issued asset, CODE:ISSUER") }
                let asset = try HorizonQuery.asset(text, field: "asset")
                guard asset != .native else { throw ProblemError.invalid("asset", "asset is an issued asset, CODE:ISSUER") }
                return try await reader.accounts(holding: asset, page)
            } render: { resources, records in
                records.map { resources.account($0) }
            }
        }
        router.get("/fee_stats") { request, _ in
            await respond(request) { _ in try await feeStats() }
        }
        registerEffects(on: router)
        registerTrades(on: router)
        registerClaimableBalances(on: router)
        registerLiquidityPools(on: router)
    }

    /// `/claimable_balances` with Horizon's filters, one balance, and its operations and transactions.
    private func registerClaimableBalances(on router: Router<BasicRequestContext>) {
        @Sendable func balanceID(_ context: BasicRequestContext) throws(ProblemError) -> ClaimableBalanceID {
            let text = context.parameters.get("id") ?? ""
            guard let id = ClaimableBalanceID(hex: text.lowercased()) else {
                throw .invalid("id", "a claimable balance id is 00000000 and 64 hexadecimal digits, not \"\(text)\"")
            }
            return id
        }
        @Sendable func render(_ resources: HorizonResources, _ balances: [ClaimableBalanceEntry]) async throws -> [JSONValue] {
            var closeTimes: [UInt32: UInt64] = [:]
            for ledger in Set(balances.map(\.lastModifiedLedger)) { closeTimes[ledger] = try await reader.ledger(ledger)?.header.closeTime }
            return balances.map { resources.claimableBalance($0, closeTime: closeTimes[$0.lastModifiedLedger]) }
        }
        router.get("/claimable_balances") { request, _ in
            await keyedCollection(request, path: "/claimable_balances", cursor: { text throws(ProblemError) in
                guard let cursor = ClaimableBalanceCursor(token: text) else {
                    throw .invalid("cursor", "a claimable balances cursor is LEDGER-ID, as the paging tokens, not \"\(text)\"")
                }
                return cursor
            }, tokenOf: { (balance: ClaimableBalanceEntry) in balance.cursor.token }) { query, page in
                var filter = ClaimableBalanceFilter(sponsor: try query.accountID("sponsor"), claimant: try query.accountID("claimant"))
                if let text = query["asset"] { filter.asset = try HorizonQuery.asset(text, field: "asset") }
                return try await reader.claimableBalances(page, filter: filter)
            } render: { resources, balances in try await render(resources, balances) }
        }
        router.get("/claimable_balances/:id") { request, context in
            await respond(request) { resources in
                guard let balance = try await reader.claimableBalance(try balanceID(context)) else { throw ProblemError(.notFound) }
                return try json(try await render(resources, [balance])[0])
            }
        }
        router.get("/claimable_balances/:id/operations") { request, context in
            let join = Self.joinsTransactions(request)
            return await collection(request, path: "/claimable_balances/\(context.parameters.get("id") ?? "")/operations", tokenOf: \.id) { query, page in
                try query.checkJoin()
                let filter = OperationFilter(claimableBalance: try balanceID(context), includeFailed: try query.includeFailed())
                return try await reader.operations(page, filter: filter)
            } render: { Self.operation($0, $1, join: join) }
        }
        router.get("/claimable_balances/:id/transactions") { request, context in
            await collection(request, path: "/claimable_balances/\(context.parameters.get("id") ?? "")/transactions", tokenOf: \.id) { _, page in
                try await reader.transactions(page, claimableBalance: try balanceID(context))
            } render: { $0.transaction($1) }
        }
    }

    /// `/liquidity_pools` (filters `reserves`, `account`), one pool, and its operations,
    /// transactions, effects and trades.
    private func registerLiquidityPools(on router: Router<BasicRequestContext>) {
        @Sendable func poolParameter(_ context: BasicRequestContext) throws(ProblemError) -> Bytes32 {
            try Self.poolID(context.parameters.get("id") ?? "", field: "id")
        }
        @Sendable func render(_ resources: HorizonResources, _ pools: [LiquidityPoolEntry]) async throws -> [JSONValue] {
            var closeTimes: [UInt32: UInt64] = [:]
            for ledger in Set(pools.map(\.lastModifiedLedger)) { closeTimes[ledger] = try await reader.ledger(ledger)?.header.closeTime }
            return pools.map { resources.liquidityPool($0, closeTime: closeTimes[$0.lastModifiedLedger]) }
        }
        router.get("/liquidity_pools") { request, _ in
            await keyedCollection(request, path: "/liquidity_pools", cursor: { text throws(ProblemError) in try Self.poolID(text, field: "cursor") },
                                  tokenOf: { (pool: LiquidityPoolEntry) in pool.id.hex }) { query, page in
                var filter = LiquidityPoolFilter(account: try query.accountID("account"))
                if let text = query["reserves"], !text.isEmpty {
                    filter.reserves = try text.split(separator: ",").map { item throws(ProblemError) in try HorizonQuery.asset(String(item), field: "reserves") }
                }
                return try await reader.liquidityPools(page, filter: filter)
            } render: { resources, pools in try await render(resources, pools) }
        }
        router.get("/liquidity_pools/:id") { request, context in
            await respond(request) { resources in
                guard let pool = try await reader.liquidityPool(try poolParameter(context)) else { throw ProblemError(.notFound) }
                return try json(try await render(resources, [pool])[0])
            }
        }
        router.get("/liquidity_pools/:id/operations") { request, context in
            let join = Self.joinsTransactions(request)
            return await collection(request, path: "/liquidity_pools/\(context.parameters.get("id") ?? "")/operations", tokenOf: \.id) { query, page in
                try query.checkJoin()
                let filter = OperationFilter(liquidityPool: try poolParameter(context), includeFailed: try query.includeFailed())
                return try await reader.operations(page, filter: filter)
            } render: { Self.operation($0, $1, join: join) }
        }
        router.get("/liquidity_pools/:id/transactions") { request, context in
            await collection(request, path: "/liquidity_pools/\(context.parameters.get("id") ?? "")/transactions", tokenOf: \.id) { _, page in
                try await reader.transactions(page, liquidityPool: try poolParameter(context))
            } render: { $0.transaction($1) }
        }
        router.get("/liquidity_pools/:id/effects") { request, context in
            await effectCollection(request, path: "/liquidity_pools/\(context.parameters.get("id") ?? "")/effects", cursorOf: \EffectRecord.cursor) { _, page in
                try await reader.effects(page, filter: .liquidityPool(try poolParameter(context)))
            } render: { $0.effect($1) }
        }
        router.get("/liquidity_pools/:id/trades") { request, context in
            await effectCollection(request, path: "/liquidity_pools/\(context.parameters.get("id") ?? "")/trades", cursorOf: \TradeRecord.cursor) { _, page in
                try await reader.trades(page, filter: TradeFilter(liquidityPool: try poolParameter(context)))
            } render: { $0.trade($1) }
        }
    }

    /// A pool id: 64 hexadecimal digits.
    static func poolID(_ text: String, field: String) throws(ProblemError) -> Bytes32 {
        let bytes = Array(text.lowercased().utf8)
        guard bytes.count == 64, bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }), let decoded = Hex.decode(text.lowercased()) else {
            throw .invalid(field, "a liquidity pool id is 64 hexadecimal digits, not \"\(text)\"")
        }
        return Bytes32(decoded)
    }

    /// `/trades` with Horizon's filters, and an account's and an offer's trades.
    private func registerTrades(on router: Router<BasicRequestContext>) {
        @Sendable func trades(_ request: Request, _ path: String, _ filter: @escaping @Sendable (HorizonQuery) async throws -> TradeFilter) async -> Response {
            await effectCollection(request, path: path, cursorOf: \TradeRecord.cursor) { query, page in
                var filter = try await filter(query)
                let base = try query.asset("base"), counter = try query.asset("counter")
                switch (base, counter) {
                case (let base?, let counter?): filter.pair = (base, counter)
                case (nil, nil): break
                case (nil, _): throw ProblemError.invalid("base_asset_type", "base_asset_type is required with counter_asset_type")
                case (_, nil): throw ProblemError.invalid("counter_asset_type", "counter_asset_type is required with base_asset_type")
                }
                switch query["trade_type"] {
                case nil, "all": break
                case "orderbook": filter.kind = .orderbook
                case "liquidity_pool": filter.kind = .liquidityPool
                case let other?: throw ProblemError.invalid("trade_type", "trade_type is all, orderbook or liquidity_pool, not \"\(other)\"")
                }
                return try await reader.trades(page, filter: filter)
            } render: { $0.trade($1) }
        }
        router.get("/trades") { request, _ in
            await trades(request, "/trades") { query in
                var filter = TradeFilter()
                if let text = query["offer_id"] {
                    guard let id = Int64(text), id > 0 else { throw ProblemError.invalid("offer_id", "an offer id is a positive whole number") }
                    filter.offerID = id
                }
                if let text = query["liquidity_pool_id"], !text.isEmpty { filter.liquidityPool = try Self.poolID(text, field: "liquidity_pool_id") }
                return filter
            }
        }
        router.get("/trade_aggregations") { request, _ in
            await respond(request) { resources in try await tradeAggregations(HorizonQuery(request), resources) }
        }
        router.get("/accounts/:account/trades") { request, context in
            await trades(request, "/accounts/\(context.parameters.get("account") ?? "")/trades") { _ in TradeFilter(account: try accountParameter(context)) }
        }
        router.get("/offers/:id/trades") { request, context in
            await trades(request, "/offers/\(context.parameters.get("id") ?? "")/trades") { _ in
                guard let id = context.parameters.get("id").flatMap({ Int64($0) }), id > 0 else {
                    throw ProblemError.invalid("id", "an offer id is a positive whole number")
                }
                return TradeFilter(offerID: id)
            }
        }
    }

    /// `/effects` and each resource's effects: an account's, a ledger's, a transaction's, an
    /// operation's.
    private func registerEffects(on router: Router<BasicRequestContext>) {
        @Sendable func effects(_ request: Request, _ path: String, _ filter: @escaping @Sendable (HorizonQuery) async throws -> EffectFilter) async -> Response {
            await effectCollection(request, path: path, cursorOf: \EffectRecord.cursor) { query, page in
                try await reader.effects(page, filter: try await filter(query))
            } render: { $0.effect($1) }
        }
        router.get("/effects") { request, _ in
            await effects(request, "/effects") { _ in .all }
        }
        router.get("/accounts/:account/effects") { request, context in
            await effects(request, "/accounts/\(context.parameters.get("account") ?? "")/effects") { _ in .account(try accountParameter(context)) }
        }
        router.get("/ledgers/:sequence/effects") { request, context in
            await effects(request, "/ledgers/\(context.parameters.get("sequence") ?? "")/effects") { _ in
                let sequence = try ledgerParameter(context)
                guard try await reader.ledger(sequence) != nil else { throw ProblemError(.notFound) }
                return .operations((Int64(sequence) << 32)..<((Int64(sequence) + 1) << 32))
            }
        }
        router.get("/transactions/:hash/effects") { request, context in
            await effects(request, "/transactions/\(context.parameters.get("hash") ?? "")/effects") { _ in
                guard let stored = try await reader.transaction(hash: try hashParameter(context)) else { throw ProblemError(.notFound) }
                let id = TOID.make(ledger: stored.ledger, transactionOrder: stored.applicationOrder, operationIndex: 0)
                return .operations(id..<(id + 4096))
            }
        }
        router.get("/operations/:id/effects") { request, context in
            await effects(request, "/operations/\(context.parameters.get("id") ?? "")/effects") { _ in
                guard let id = context.parameters.get("id").flatMap({ Int64($0) }), id > 0, id < .max else {
                    throw ProblemError.invalid("id", "an operation id is a positive whole number")
                }
                return .operations(id..<(id + 1))
            }
        }
    }

    private func accountParameter(_ context: BasicRequestContext) throws(ProblemError) -> AccountID {
        try HorizonQuery.accountID(context.parameters.get("account") ?? "", field: "account_id")
    }

    /// Whether the request asks each operation to embed its transaction (`join=transactions`).
    static func joinsTransactions(_ request: Request) -> Bool { HorizonQuery(request)["join"] == "transactions" }

    /// An operation, with its transaction embedded when asked (`join=transactions`).
    static func operation(_ resources: HorizonResources, _ record: OperationRecord, join: Bool) -> JSONValue {
        let document = resources.operation(record)
        guard join, case .object(var fields) = document else { return document }
        fields.append(("transaction", resources.transaction(record.transaction)))
        return .object(fields)
    }

    private func ledgerParameter(_ context: BasicRequestContext) throws(ProblemError) -> UInt32 {
        guard let sequence = context.parameters.get("sequence").flatMap({ UInt32($0) }), sequence > 0 else {
            throw .invalid("sequence", "a ledger sequence is a positive whole number")
        }
        return sequence
    }

    /// A page of a collection keyed by TOIDs, kept to one ledger's range: the cursor is moved
    /// into the range and what lies past it is dropped (records are in TOID order, so the page
    /// ends there).
    static func inLedger<Record>(_ sequence: UInt32, _ page: PageRequest, id: KeyPath<Record, Int64>, _ fetch: (PageRequest) async throws -> [Record]) async throws -> [Record] {
        let first = Int64(sequence) << 32, next = (Int64(sequence) + 1) << 32
        var bounded = page
        if page.descending {
            bounded.cursor = min(page.cursor ?? next, next)
        } else {
            bounded.cursor = max(page.cursor ?? 0, first - 1)
        }
        return try await fetch(bounded).filter { $0[keyPath: id] >= first && $0[keyPath: id] < next }
    }

    private func hashParameter(_ context: BasicRequestContext) throws(ProblemError) -> Bytes32 {
        let text = context.parameters.get("hash") ?? ""
        guard text.utf8.count == 64, let bytes = Hex.decode(text) else {
            throw .invalid("tx_id", "a transaction hash is 64 hexadecimal digits")
        }
        return Bytes32(bytes)
    }

    // MARK: Answers

    /// Runs `body`, turning a ``ProblemError`` into its problem+json answer and anything else
    /// into a 500 that is logged (``Problem/answering(_:to:logger:)``).
    func respond(_ request: Request, _ body: (HorizonResources) async throws -> Response) async -> Response {
        do {
            return try await body(resources(for: request))
        } catch {
            return Problem.answering(error, to: request, logger: logger).response()
        }
    }

    func resources(for request: Request) -> HorizonResources {
        resources(authority: request.head.authority ?? "\(configuration.host):\(configuration.port)")
    }

    /// The resources for requests made to `http://authority`.
    func resources(authority: String) -> HorizonResources {
        HorizonResources(base: "http://\(authority)", network: configuration.network)
    }

    func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) throws -> Response {
        json(value.compactBytes(), status: status)
    }

    func json(_ body: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        json(ByteBuffer(bytes: body), status: status)
    }

    func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: Self.jsonHeaders, body: ResponseBody(byteBuffer: body))
    }

    static let jsonContentType = "application/hal+json; charset=utf-8"
    static let jsonHeaders: HTTPFields = [.contentType: jsonContentType]

    /// A collection: a HAL page, or with `Accept: text/event-stream` a stream of its records
    /// from `cursor` on.
    func collection<Record>(
        _ request: Request, path: String, tokenOf: @escaping @Sendable (Record) -> Int64,
        fetch: @escaping @Sendable (HorizonQuery, PageRequest) async throws -> [Record],
        render: @escaping @Sendable (HorizonResources, Record) -> JSONValue
    ) async -> Response {
        let query = HorizonQuery(request)
        let streaming = request.headers[.accept]?.contains("text/event-stream") ?? false
        return await respond(request) { resources in
            // `now` is the first paging token after the last committed ledger.
            let now = TOID.make(ledger: commits.latest + 1, transactionOrder: 0, operationIndex: 0) - 1
            var page = try query.page(now: now)
            if streaming {
                // Streams always run forward; an unknown cursor starts from the beginning.
                page.descending = false
                _ = try await fetch(query, PageRequest(cursor: page.cursor, limit: 1))
                return stream(resources, from: page.cursor) { cursor in
                    try await fetch(query, PageRequest(cursor: cursor, limit: 200)).map { record in
                        let token = tokenOf(record)
                        return (token, String(token), render(resources, record))
                    }
                }
            }
            let records = try await fetch(query, page)
            let tokens = records.map { String(tokenOf($0)) }
            return try json(pageDocument(
                resources, path: path, query: query, cursor: page.cursor.map(String.init), limit: page.limit, descending: page.descending,
                tokens: tokens, records: records.map { render(resources, $0) }))
        }
    }

    /// A collection ordered by a key that is not a number (`/assets`, `/accounts`): a HAL page,
    /// its paging tokens the keys.
    func keyedCollection<Key, Record>(
        _ request: Request, path: String, cursor parse: @escaping @Sendable (String) throws(ProblemError) -> Key, tokenOf: @escaping @Sendable (Record) -> String,
        fetch: @escaping @Sendable (HorizonQuery, KeyedPage<Key>) async throws -> [Record],
        render: @escaping @Sendable (HorizonResources, [Record]) async throws -> [JSONValue]
    ) async -> Response {
        let query = HorizonQuery(request)
        return await respond(request) { resources in
            let (limit, descending) = try query.limitAndOrder()
            var page = KeyedPage<Key>(limit: limit, descending: descending)
            let cursor = query["cursor"]
            if let cursor { page.after = try parse(cursor) }
            let records = try await fetch(query, page)
            return try json(pageDocument(
                resources, path: path, query: query, cursor: cursor, limit: page.limit, descending: page.descending,
                tokens: records.map(tokenOf), records: try await render(resources, records)))
        }
    }

    /// A collection of effects (or trades), paged by `OPID-ORDER` tokens: a HAL page, or with
    /// `Accept: text/event-stream` a stream of its records from `cursor` on.
    func effectCollection<Record: Sendable>(
        _ request: Request, path: String, cursorOf: @escaping @Sendable (Record) -> EffectCursor,
        fetch: @escaping @Sendable (HorizonQuery, KeyedPage<EffectCursor>) async throws -> [Record],
        render: @escaping @Sendable (HorizonResources, Record) -> JSONValue
    ) async -> Response {
        let query = HorizonQuery(request)
        let streaming = request.headers[.accept]?.contains("text/event-stream") ?? false
        return await respond(request) { resources in
            let (limit, descending) = try query.limitAndOrder()
            var page = KeyedPage<EffectCursor>(limit: limit, descending: descending)
            if let cursor = query["cursor"] {
                if cursor == "now" {
                    // After every record of the last committed ledger.
                    let now = TOID.make(ledger: commits.latest + 1, transactionOrder: 0, operationIndex: 0) - 1
                    page.after = EffectCursor(operationID: now, order: Int64(Int32.max))
                } else {
                    guard let parsed = EffectCursor(token: cursor) else {
                        throw ProblemError.invalid("cursor", "cursor must be a paging token (OPID-ORDER, or OPID) or \"now\", not \"\(cursor)\"")
                    }
                    page.after = parsed
                }
            }
            if streaming {
                page.descending = false
                _ = try await fetch(query, KeyedPage(after: page.after, limit: 1))
                return stream(resources, from: page.after) { cursor in
                    try await fetch(query, KeyedPage(after: cursor, limit: 200)).map { record in
                        let next = cursorOf(record)
                        return (next, next.token, render(resources, record))
                    }
                }
            }
            let records = try await fetch(query, page)
            return try json(pageDocument(
                resources, path: path, query: query, cursor: query["cursor"], limit: page.limit, descending: page.descending,
                tokens: records.map { cursorOf($0).token }, records: records.map { render(resources, $0) }))
        }
    }

    func pageDocument(
        _ resources: HorizonResources, path: String, query: HorizonQuery, cursor: String?, limit: Int, descending: Bool, tokens: [String], records: [JSONValue]
    ) -> JSONValue {
        let extra = query.parameters.filter { !["cursor", "limit", "order"].contains($0.key) && !$0.value.isEmpty }
            .sorted { $0.key < $1.key }
            .map { "&\($0.key)=\(HorizonQuery.escaped($0.value))" }
            .joined()
        func href(cursor: String?, descending: Bool) -> JSONValue {
            let cursorText = cursor.map(HorizonQuery.escaped) ?? ""
            return resources.link("\(path)?cursor=\(cursorText)&limit=\(limit)&order=\(descending ? "desc" : "asc")\(extra)")
        }
        return .object([
            ("_links", .object([
                ("self", href(cursor: cursor, descending: descending)),
                ("next", href(cursor: tokens.last ?? cursor, descending: descending)),
                ("prev", href(cursor: tokens.first ?? cursor, descending: !descending)),
            ])),
            ("_embedded", .object([("records", .array(records))])),
        ])
    }

    /// Server-sent events, as Horizon sends them: a hello, then every record after `cursor` with
    /// its paging token as the event id, then each new record as its ledger commits.
    func stream<Cursor: Sendable>(
        _ resources: HorizonResources, from cursor: Cursor?, fetch: @escaping @Sendable (Cursor?) async throws -> [(cursor: Cursor, token: String, record: JSONValue)]
    ) -> Response {
        let commits = self.commits
        let logger = self.logger
        let openStreams = metrics.openStreams
        let body = ResponseBody { writer in
            openStreams.increment()
            defer { openStreams.decrement() }
            var cursor = cursor
            try await writer.write(ByteBuffer(string: "retry: 1000\nevent: open\ndata: \"hello\"\n\n"))
            var seen = commits.latest
            var quiet = Duration.zero
            while !commits.isClosed && !Task.isShuttingDownGracefully {
                let records: [(cursor: Cursor, token: String, record: JSONValue)]
                do {
                    records = try await fetch(cursor)
                } catch {
                    logger.error("stream read failed: \(error)")
                    break
                }
                if !records.isEmpty {
                    var events = ""
                    for (next, token, record) in records {
                        events += "id: \(token)\ndata: \(record.compact())\n\n"
                        cursor = next
                    }
                    try await writer.write(ByteBuffer(string: events))
                    if records.count == 200 { continue }
                }
                // The commit broadcast wakes this at least every heartbeat (one timer for every
                // stream), so a quiet stream sends keep-alives and notices a graceful shutdown
                // (the server drains its connections before the ledger writer stops, so a
                // stream must end by itself).
                let latest = await commits.wait(after: seen)
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                if latest == seen {
                    quiet += LedgerCommits.heartbeatInterval
                    if quiet >= Self.streamKeepAlive {
                        // A comment keeps the connection (and its proxies) alive and finds out
                        // whether the client is still there.
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                        quiet = .zero
                    }
                } else {
                    quiet = .zero
                }
                seen = latest
            }
            try await writer.write(ByteBuffer(string: "event: close\ndata: \"byebye\"\n\n"))
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-cache"],
            body: body)
    }

    // MARK: Trade aggregations

    /// `/trade_aggregations`: a pair's trades in buckets of `resolution` from `offset`, between
    /// `start_time` and `end_time` (milliseconds, moved to bucket starts as Horizon moves them).
    func tradeAggregations(_ query: HorizonQuery, _ resources: HorizonResources) async throws -> Response {
        let base = try query.requiredAsset("base"), counter = try query.requiredAsset("counter")
        func milliseconds(_ name: String) throws(ProblemError) -> Int64? {
            guard let text = query[name] else { return nil }
            guard let value = Int64(text), value >= 0 else { throw .invalid(name, "\(name) is a whole number of milliseconds since 1970, not \"\(text)\"") }
            return value
        }
        guard let resolution = try milliseconds("resolution"), TradeAggregation.resolutions.contains(resolution) else {
            throw ProblemError.invalid("resolution", "illegal or missing resolution. allowed resolutions are: 1 minute (60000), 5 minutes (300000), 15 minutes (900000), 1 hour (3600000), 1 day (86400000) and 1 week (604800000)")
        }
        let offset = try milliseconds("offset") ?? 0
        if let problem = TradeAggregation.offsetProblem(offset, resolution: resolution) { throw ProblemError.invalid("offset", problem) }
        let (limit, descending) = try query.limitAndOrder()
        let start = TradeAggregation.adjustedStart(try milliseconds("start_time") ?? 0, resolution: resolution, offset: offset)
        var end = Int64.max
        if let requested = try milliseconds("end_time") {
            guard let adjusted = TradeAggregation.adjustedEnd(requested, resolution: resolution, offset: offset), adjusted >= start else {
                throw ProblemError.invalid("end_time", "illegal end time. adjusted end time must be greater than the offset and greater than the provided start time")
            }
            end = adjusted
        }
        // Close times are whole seconds; bucket bounds are whole minutes.
        let closed = UInt64(start / 1000)..<UInt64(end == .max ? .max : end / 1000)
        var buckets: [TradeBucket] = []
        var after: EffectCursor?
        reading: while true {
            let batch = try await reader.trades(KeyedPage(after: after, limit: 200, descending: descending), filter: TradeFilter(pair: (base, counter), closed: closed))
            for trade in batch where !TradeAggregation.add(trade, to: &buckets, resolution: resolution, offset: offset, limit: limit, descending: descending) {
                break reading
            }
            guard batch.count == 200, let last = batch.last else { break }
            after = last.cursor
        }
        var parameters = query.parameters
        if let last = buckets.last {
            if descending {
                parameters["end_time"] = String(max(last.timestamp, start))
            } else {
                parameters["start_time"] = String(end == .max ? last.timestamp + resolution : min(last.timestamp + resolution, end))
            }
        }
        func href(_ parameters: [String: String]) -> JSONValue {
            let text = parameters.sorted { $0.key < $1.key }
                .map { "\($0.key)=\(HorizonQuery.escaped($0.value))" }
                .joined(separator: "&")
            return resources.link("/trade_aggregations?" + text)
        }
        return try json(.object([
            ("_links", .object([("self", href(query.parameters)), ("next", href(parameters)), ("prev", href(query.parameters))])),
            ("_embedded", .object([("records", .array(buckets.map(HorizonResources.tradeBucket)))])),
        ]))
    }

    // MARK: Order books, paths, fees

    /// Runs a read's computation (an order book, a path search) as a low-priority child task:
    /// when the cooperative pool has both, it runs the ledger writer's and the submissions'
    /// work first, so a flood of reads slows other reads before it slows the ledger.
    static func atLowPriority<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask(priority: .low, operation: work)
            guard let result = try await group.next() else { throw CancellationError() }
            return result
        }
    }

    func orderBook(_ query: HorizonQuery) async throws -> Response {
        let selling = try query.requiredAsset("selling")
        let buying = try query.requiredAsset("buying")
        var limit = 20
        if let text = query["limit"] {
            guard let value = Int(text), (1...200).contains(value) else { throw ProblemError.invalid("limit", "limit must be a whole number from 1 to 200") }
            limit = value
        }
        let book = commits.orderBook
        let (asks, bids) = (book.offers(selling: selling, buying: buying), book.offers(selling: buying, buying: selling))
        // Asks sell the base asset; bids sell the counter asset, their price inverted.
        let askLevels = Self.levels(asks.map { (Price(n: $0.price.n, d: $0.price.d), $0.amount) }, limit: limit)
        let bidLevels = Self.levels(bids.map { (Price(n: $0.price.d, d: $0.price.n), $0.amount) }, limit: limit)
        return try json(.object([
            ("bids", .array(bidLevels)), ("asks", .array(askLevels)),
            ("base", HorizonResources.asset(selling)), ("counter", HorizonResources.asset(buying)),
        ]))
    }

    /// Offers in book order, summed by price level.
    static func levels(_ offers: [(Price, Int64)], limit: Int) -> [JSONValue] {
        var levels: [(Price, Int64)] = []
        for (price, amount) in offers {
            if let last = levels.last, Int64(last.0.n) * Int64(price.d) == Int64(price.n) * Int64(last.0.d) {
                levels[levels.count - 1].1 = last.1.addingReportingOverflow(amount).overflow ? .max : last.1 + amount
            } else {
                if levels.count == limit { break }
                levels.append((price, amount))
            }
        }
        return levels.map { price, amount in
            .object(HorizonResources.price(price) + [("amount", HorizonResources.amount(amount))])
        }
    }

    /// The assets an account holds: XLM and every trustline, with their balances.
    private func holdings(_ account: AccountID) async throws -> [(Asset, Int64)] {
        guard let record = try await reader.account(account) else { throw ProblemError(.notFound) }
        return [(.native, record.account.balance)] + record.trustLines.map { ($0.asset, $0.balance) }
    }

    func strictSendPaths(_ query: HorizonQuery, _ resources: HorizonResources) async throws -> Response {
        let sourceAsset = try query.requiredAsset("source")
        let sourceAmount = try query.amount("source_amount")
        let destinations: [Asset]
        if let account = try query.accountID("destination_account") {
            guard query["destination_assets"] == nil else { throw ProblemError.invalid("destination_assets", "give destination_account or destination_assets, not both") }
            destinations = try await holdings(account).map(\.0)
        } else if let assets = try query.assetList("destination_assets") {
            destinations = assets
        } else {
            throw ProblemError.invalid("destination_assets", "destination_account or destination_assets is required")
        }
        try await pathFinding?.enter()
        let paths = try searchingPaths { book, limits throws(PathSearchError) in
            try book.strictSendPaths(sourceAsset: sourceAsset, sourceAmount: sourceAmount, destinationAssets: destinations, limits: limits)
        }
        return try json(pathsDocument(resources, paths))
    }

    func strictReceivePaths(_ query: HorizonQuery, _ resources: HorizonResources) async throws -> Response {
        let destinationAsset = try query.requiredAsset("destination")
        let destinationAmount = try query.amount("destination_amount")
        let sources: [Asset]
        var balances: [Asset: Int64]?
        if let account = try query.accountID("source_account") {
            guard query["source_assets"] == nil else { throw ProblemError.invalid("source_assets", "give source_account or source_assets, not both") }
            let held = try await holdings(account)
            sources = held.map(\.0)
            balances = Dictionary(held, uniquingKeysWith: { first, _ in first })
        } else if let assets = try query.assetList("source_assets") {
            sources = assets
        } else {
            throw ProblemError.invalid("source_assets", "source_account or source_assets is required")
        }
        try await pathFinding?.enter()
        var paths = try searchingPaths { book, limits throws(PathSearchError) in
            try book.strictReceivePaths(sourceAssets: sources, destinationAsset: destinationAsset, destinationAmount: destinationAmount, limits: limits)
        }
        if let balances {
            // With a source account, only paths it can pay for.
            paths = paths.filter { $0.sourceAmount <= balances[$0.sourceAsset] ?? 0 }
        }
        return try json(pathsDocument(resources, paths))
    }

    /// Runs a path search on the committed order book within ``TenderConfiguration/pathSearchLimits``
    /// and its time budget; a search over them is a 400 that says which bound it hit.
    private func searchingPaths(_ search: (OrderBookSnapshot, PathSearchLimits) throws(PathSearchError) -> [PaymentPath]) throws(ProblemError) -> [PaymentPath] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: configuration.pathSearchTimeLimit)
        var limits = configuration.pathSearchLimits
        limits.isPastDeadline = { clock.now >= deadline }
        do {
            return try search(commits.orderBook, limits)
        } catch {
            throw ProblemError(.badRequest(error.message))
        }
    }

    private func pathsDocument(_ resources: HorizonResources, _ paths: [PaymentPath]) -> JSONValue {
        .object([
            ("_links", .object([("self", resources.link(""))])),
            ("_embedded", .object([("records", .array(paths.map(HorizonResources.path)))])),
        ])
    }

    /// Fee statistics over the last five ledgers, per operation, as Horizon reports them.
    func feeStats() async throws -> Response {
        let recentLedgers = 5
        let (charged, offered) = try await reader.recentFees(ledgers: recentLedgers)
        let latest = try await reader.ledger(commits.latest)
        let baseFee = Int64(latest?.header.baseFee ?? 100)
        let capacity = latest.map { Double($0.operationCount) / Double(max(1, $0.header.maxTransactionSetSize)) } ?? 0
        return try json(.object([
            ("last_ledger", .string(String(commits.latest))),
            ("last_ledger_base_fee", .string(String(baseFee))),
            ("ledger_capacity_usage", .string(String(format: "%.2f", capacity))),
            ("fee_charged", Self.distribution(charged, base: baseFee)),
            ("max_fee", Self.distribution(offered, base: baseFee)),
        ]))
    }

    /// max, min, mode and percentiles of `values` (all `base` when there are none).
    static func distribution(_ values: [Int64], base: Int64) -> JSONValue {
        let sorted = values.isEmpty ? [base] : values.sorted()
        func percentile(_ p: Int) -> JSONValue {
            // Nearest rank.
            let rank = max(1, Int((Double(p) / 100 * Double(sorted.count)).rounded(.up)))
            return .string(String(sorted[min(rank, sorted.count) - 1]))
        }
        var counts: [Int64: Int] = [:]
        for value in sorted { counts[value, default: 0] += 1 }
        let mode = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }!.key
        var fields: [(String, JSONValue)] = [
            ("max", .string(String(sorted.last!))), ("min", .string(String(sorted.first!))), ("mode", .string(String(mode))),
        ]
        for p in [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] { fields.append(("p\(p)", percentile(p))) }
        return .object(fields)
    }
}
