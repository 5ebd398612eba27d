import Foundation
import Hummingbird
import Ledger
import StellarBase
import TenderJSON

/// The console's ledger explorer: the latest ledgers, a ledger, a transaction with its result
/// codes and operations, an account with its balances, signers, thresholds, offers and payments,
/// and one search box for an account, a transaction hash, a ledger number or a payment id. Each
/// page shows Horizon's own documents, made by the same code as Horizon's routes, with a link to
/// the JSON itself. Open to every signed-in user, as Horizon is.
extension ConsoleRoutes {
    /// A field of a JSON object.
    static func field(_ value: JSONValue?, _ name: String) -> JSONValue? {
        guard case .object(let fields) = value else { return nil }
        return fields.first { $0.0 == name }?.1
    }

    /// A JSON value as a line of text: strings as they are, numbers, booleans, `–` for null.
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text): text
        case .number(let number): String(number)
        case .unsigned(let number): String(number)
        case .bool(let flag): flag ? "yes" : "no"
        case .null, nil: "–"
        case .array(let values): values.map { text($0) }.joined(separator: ", ")
        case .object(let fields): fields.map { "\($0.0): \(text($0.1))" }.joined(separator: ", ")
        case .raw(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The scalar fields of a Horizon document (its links and long XDR left out), in its order.
    static func documentFacts(_ document: JSONValue, skipping: Set<String> = []) -> [(String, String, Bool)] {
        guard case .object(let fields) = document else { return [] }
        return fields.compactMap { name, value in
            if name == "_links" || name.hasSuffix("_xdr") || skipping.contains(name) { return nil }
            switch value {
            case .array(let values) where values.contains(where: { if case .object = $0 { true } else { false } }): return nil
            case .object: return (name, text(value), false)
            default:
                let shown = text(value)
                let isCode = name.hasSuffix("account") || name == "hash" || name == "id" || name == "paging_token" || shown.hasPrefix("G") && shown.count == 56
                return (name, shown, isCode)
            }
        }
    }

    func explorerSearchForm(_ query: String, _ t: ConsoleText) -> String {
        ConsoleTemplates.explorerSearch.render(["q": query, "t": t.lambda])
    }

    /// `/console/explorer`: the latest ledgers and the search box.
    func explorer(_ scope: Scope, _ request: Request) async throws -> Response {
        let t = scope.text
        let search = Self.queryValue(request, "q").trimmingCharacters(in: .whitespaces)
        if !search.isEmpty {
            if let target = explorerTarget(search, scope: scope) { return Self.redirect(target) }
            return sectionsPage(scope, title: t("Explorer"), heading: t("Explorer"), current: "explorer",
                                sections: [Section(title: t("Search"), html: explorerSearchForm(search, t))],
                                error: t("Nothing is found by that: search takes an account (G…), a transaction hash (64 hexadecimal characters), a ledger number, an asset (CODE or CODE:ISSUER) or a payment id (pi_…)."),
                                status: .notFound)
        }
        let resources = horizon.resources(for: request)
        let ledgers = try await horizon.reader.ledgers(PageRequest(limit: 15, descending: true))
        let rows = ledgers.map { record -> [Cell] in
            let document = resources.ledger(record)
            let sequence = Self.text(Self.field(document, "sequence"))
            return [
                Cell(text: sequence, href: "/console/explorer/ledgers/\(sequence)", num: true),
                Cell(text: Self.text(Self.field(document, "closed_at"))),
                Cell(text: Self.text(Self.field(document, "successful_transaction_count")), num: true),
                Cell(text: Self.text(Self.field(document, "failed_transaction_count")), num: true),
                Cell(text: Self.text(Self.field(document, "operation_count")), num: true),
            ]
        }
        let book = horizon.commits.orderBook
        let marketRows = book.markets.map { pair in (pair, book.offers(selling: pair.selling, buying: pair.buying).count) }
            .sorted { ($0.1, $0.0.selling.description) > ($1.1, $1.0.selling.description) }.prefix(20).map { pair, count -> [Cell] in
                [
                    Cell(text: "\(Self.assetName(pair.selling)) → \(Self.assetName(pair.buying))",
                         href: "/console/explorer/order_book?selling=\(Self.queryEscaped(pair.selling.description))&buying=\(Self.queryEscaped(pair.buying.description))"),
                    Cell(text: String(count), num: true),
                ]
            }
        let assets = try await horizon.reader.assets(KeyedPage(limit: 20), code: nil, issuer: nil)
        return sectionsPage(scope, title: t("Explorer"), heading: t("Explorer"), current: "explorer", sections: [
            Section(title: t("Search"), html: explorerSearchForm("", t)),
            Section(title: t("Assets"), text: t("Issued assets with their holders, by code."), html: assetTable(assets, t),
                    pager: assets.count == 20 ? "/console/explorer/assets?after=\(Self.queryEscaped(assets[19].pagingToken))" : nil, pagerText: t("More assets")),
            Section(title: t("Latest ledgers"), text: t("Newest first; a ledger closes every second, or as soon as a batch is full."), html: Self.table(
                [Column(title: t("Ledger"), num: true), Column(title: t("Closed")), Column(title: t("Transactions"), num: true), Column(title: t("Failed"), num: true), Column(title: t("Operations"), num: true)],
                rows, empty: t("No ledgers yet.")), live: "/console/live?ledgers=1"),
            Section(title: t("Order books"), text: t("Markets with offers, selling → buying."), html: Self.table(
                [Column(title: t("Market")), Column(title: t("Offers"), num: true)], Array(marketRows), empty: t("No offers on the ledger."))),
        ])
    }

    /// Where a search leads: an account, a transaction, a ledger, or (for a merchant's view) a payment.
    func explorerTarget(_ search: String, scope: Scope) -> String? {
        if (try? AccountID(search)) != nil { return "/console/explorer/accounts/\(search)" }
        if search.utf8.count == 64, search.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }) {
            return "/console/explorer/transactions/\(search.lowercased())"
        }
        if let sequence = UInt32(search), sequence > 0 { return "/console/explorer/ledgers/\(sequence)" }
        if search.contains(":"), let asset = try? Asset(parsing: search), asset != .native { return "/console/explorer/assets/\(asset.description)" }
        if (1...12).contains(search.utf8.count), search.utf8.allSatisfy(AssetCode.isAllowed), search.utf8.contains(where: { $0 > 57 }) {
            return "/console/explorer/assets?code=\(search)"
        }
        if search.hasPrefix("pi_"), scope.merchant != nil { return Self.link("/console/payments/\(Self.queryEscaped(search))", scope) }
        if search.hasPrefix("ord_"), scope.isMarketplace { return Self.link("/console/marketplace/orders/\(Self.queryEscaped(search))", scope) }
        return nil
    }

    func explorerLedger(_ scope: Scope, _ request: Request, sequence text: String) async throws -> Response {
        let t = scope.text
        guard let sequence = UInt32(text), sequence > 0, let record = try await horizon.reader.ledger(sequence) else { return notFound(scope) }
        let document = horizon.resources(for: request).ledger(record)
        return sectionsPage(scope, title: t("Ledger") + " \(sequence)", heading: t("Ledger") + " \(sequence)", current: "explorer", sections: [
            Section(title: t("Ledger"), html: Self.facts(Self.documentFacts(document)) + jsonLink("/ledgers/\(sequence)")),
        ], back: ("/console/explorer", t("Explorer")))
    }

    func explorerTransaction(_ scope: Scope, _ request: Request, hash text: String) async throws -> Response {
        let t = scope.text
        guard text.utf8.count == 64, let bytes = Hex.decode(text), let stored = try await horizon.reader.transaction(hash: Bytes32(bytes)) else { return notFound(scope) }
        let resources = horizon.resources(for: request)
        let document = resources.transaction(stored)
        var facts = Self.documentFacts(document, skipping: ["signatures", "memo_bytes"])
        let codes = Problem.resultCodes(stored.result)
        facts.insert(("result", Self.text(Self.field(codes, "transaction")), true), at: 0)
        let operations = try await horizon.reader.operations(PageRequest(limit: 100), filter: OperationFilter(transactionHash: stored.hash, includeFailed: true))
        let operationCodes: [String] = if case .array(let values) = Self.field(codes, "operations") { values.map { Self.text($0) } } else { [] }
        let rows = operations.enumerated().map { index, record -> [Cell] in
            let operation = resources.operation(record)
            let details = Self.documentFacts(operation, skipping: ["id", "paging_token", "transaction_successful", "source_account", "type", "type_i", "created_at", "transaction_hash"])
            return [
                Cell(text: Self.text(Self.field(operation, "type"))),
                Cell(text: index < operationCodes.count ? operationCodes[index] : "–", code: true),
                Cell(text: Self.text(Self.field(operation, "source_account")), href: "/console/explorer/accounts/\(Self.text(Self.field(operation, "source_account")))", code: true),
                Cell(text: details.map { "\($0.0): \($0.1)" }.joined(separator: "; ")),
            ]
        }
        return sectionsPage(scope, title: t("Transaction"), heading: t("Transaction") + " \(stored.hash.hex.prefix(12))…", current: "explorer", sections: [
            Section(title: t("Transaction"), html: Self.facts(facts) + jsonLink("/transactions/\(stored.hash.hex)")),
            Section(title: t("Operations"), html: Self.table([Column(title: t("Type")), Column(title: t("Result")), Column(title: t("Source")), Column(title: t("Details"))], rows, empty: t("No operations."))),
        ], back: ("/console/explorer", t("Explorer")))
    }

    func explorerAccount(_ scope: Scope, _ request: Request, id text: String) async throws -> Response {
        let t = scope.text
        guard let id = try? AccountID(text), let record = try await horizon.reader.account(id) else { return notFound(scope) }
        let resources = horizon.resources(for: request)
        let document = resources.account(record)
        let balances: [JSONValue] = if case .array(let values) = Self.field(document, "balances") { values } else { [] }
        let balanceRows = balances.map { balance -> [Cell] in
            let code = Self.text(Self.field(balance, "asset_type")) == "native" ? "XLM" : Self.text(Self.field(balance, "asset_code"))
            let issuer = Self.field(balance, "asset_issuer").map { Self.text($0) }
            return [
                Cell(text: code, href: issuer.map { "/console/explorer/assets/\(code):\($0)" }), Cell(text: Self.text(Self.field(balance, "balance")), num: true),
                Cell(text: Self.field(balance, "limit").map { Self.text($0) } ?? "–", num: true),
                Cell(text: Self.field(balance, "asset_issuer").map { Self.text($0) } ?? "–", code: true),
            ]
        }
        let signers: [JSONValue] = if case .array(let values) = Self.field(document, "signers") { values } else { [] }
        let signerRows = signers.map { [Cell(text: Self.text(Self.field($0, "key")), code: true), Cell(text: Self.text(Self.field($0, "weight")), num: true), Cell(text: Self.text(Self.field($0, "type")))] }
        let payments = try await horizon.reader.operations(PageRequest(limit: 20, descending: true), filter: OperationFilter(account: id, paymentsOnly: true, includeFailed: false))
        let paymentRows = payments.map { record -> [Cell] in
            let operation = resources.operation(record)
            let asset = Self.text(Self.field(operation, "asset_type")) == "native" ? "XLM" : Self.text(Self.field(operation, "asset_code"))
            let amount = Self.field(operation, "amount").map { Self.text($0) } ?? Self.text(Self.field(operation, "starting_balance"))
            let hash = Self.text(Self.field(operation, "transaction_hash"))
            return [
                Cell(text: Self.text(Self.field(operation, "type"))), Cell(text: "\(amount) \(asset)", num: true),
                Cell(text: Self.text(Self.field(operation, "from") ?? Self.field(operation, "funder")), code: true),
                Cell(text: Self.text(Self.field(operation, "to") ?? Self.field(operation, "account")), code: true),
                Cell(text: hash.prefix(12) + "…", href: "/console/explorer/transactions/\(hash)", code: true),
            ]
        }
        let offers = try await horizon.reader.offers(PageRequest(limit: 50), seller: id, selling: nil, buying: nil, sponsor: nil)
        let offerRows = offers.map { offer -> [Cell] in
            let json = resources.offer(offer)
            let asset = { (value: JSONValue?) in Self.text(Self.field(value, "asset_type")) == "native" ? "XLM" : Self.text(Self.field(value, "asset_code")) }
            return [Cell(text: Self.text(Self.field(json, "id")), code: true), Cell(text: "\(Self.text(Self.field(json, "amount"))) \(asset(Self.field(json, "selling")))", num: true),
                    Cell(text: asset(Self.field(json, "buying"))), Cell(text: Self.text(Self.field(json, "price")), num: true)]
        }
        return sectionsPage(scope, title: t("Account"), heading: t("Account") + " \(text.prefix(6))…\(text.suffix(4))", current: "explorer", sections: [
            Section(title: t("Account"), html: Self.facts(Self.documentFacts(document, skipping: ["account_id"]).filter { $0.0 != "id" } + [("id", text, true)]) + jsonLink("/accounts/\(text)")),
            Section(title: t("Balances and trustlines"), html: Self.table([Column(title: t("Asset")), Column(title: t("Balance"), num: true), Column(title: t("Limit"), num: true), Column(title: t("Issuer"))], balanceRows, empty: t("No balances."))),
            Section(title: t("Signers"), html: Self.table([Column(title: t("Key")), Column(title: t("Weight"), num: true), Column(title: t("Type"))], signerRows, empty: t("No signers."))),
            Section(title: t("Offers"), html: Self.table([Column(title: t("Offer")), Column(title: t("Selling"), num: true), Column(title: t("Buying")), Column(title: t("Price"), num: true)], offerRows, empty: t("No offers."))),
            Section(title: t("Latest payments"), html: Self.table([Column(title: t("Type")), Column(title: t("Amount"), num: true), Column(title: t("From")), Column(title: t("To")), Column(title: t("Transaction"))], paymentRows, empty: t("No payments."))),
        ], back: ("/console/explorer", t("Explorer")))
    }

    /// An order book (`?selling=native&buying=CODE:ISSUER`): its bids and asks by price level, as
    /// Horizon's `/order_book` answers, and their depth drawn (the amount offered at each level
    /// and better, summed).
    func explorerOrderBook(_ scope: Scope, _ request: Request) async throws -> Response {
        let t = scope.text
        guard let selling = try? Asset(parsing: Self.queryValue(request, "selling")), let buying = try? Asset(parsing: Self.queryValue(request, "buying")),
              selling != buying else { return notFound(scope) }
        let book = horizon.commits.orderBook
        let asks = HorizonRoutes.levels(book.offers(selling: selling, buying: buying).map { (Price(n: $0.price.n, d: $0.price.d), $0.amount) }, limit: 20)
        let bids = HorizonRoutes.levels(book.offers(selling: buying, buying: selling).map { (Price(n: $0.price.d, d: $0.price.n), $0.amount) }, limit: 20)
        let (base, counter) = (Self.assetName(selling), Self.assetName(buying))
        func rows(_ levels: [JSONValue]) -> [[Cell]] {
            levels.map { [Cell(text: Self.text(Self.field($0, "price")), num: true), Cell(text: "\(Self.text(Self.field($0, "amount")))", num: true)] }
        }
        func depth(_ levels: [JSONValue], _ side: String) -> String {
            guard !levels.isEmpty else { return "" }
            var total: Int64 = 0
            let bars = levels.map { level -> BarChart.Bar in
                total += (try? Amount.parse(Self.text(Self.field(level, "amount")))) ?? 0
                let price = Self.text(Self.field(level, "price"))
                return BarChart.Bar(label: price, value: total, text: "\(Amount.format(total)) \(base) at \(price) or better")
            }
            return BarChart(title: "\(side) depth: \(base) offered at each price in \(counter) or better", bars: bars, height: 160).svg()
        }
        let columns = [Column(title: t("Price") + " (\(counter))", num: true), Column(title: t("Amount") + " (\(base))", num: true)]
        let query = "selling_asset_type=\(selling.typeName)\(selling.code.map { "&selling_asset_code=\($0.text)" } ?? "")\(selling.issuer.map { "&selling_asset_issuer=\($0.strKey)" } ?? "")"
            + "&buying_asset_type=\(buying.typeName)\(buying.code.map { "&buying_asset_code=\($0.text)" } ?? "")\(buying.issuer.map { "&buying_asset_issuer=\($0.strKey)" } ?? "")"
        return sectionsPage(scope, title: t("Order book"), heading: "\(base) → \(counter)", current: "explorer", sections: [
            Section(title: t("Bids"), text: "Offers to buy \(base) with \(counter), best first.", html: depth(bids, "Bid") + Self.table(columns, rows(bids), empty: t("No bids."))),
            Section(title: t("Asks"), text: "Offers to sell \(base) for \(counter), best first.", html: depth(asks, "Ask") + Self.table(columns, rows(asks), empty: t("No asks.")) + jsonLink("/order_book?" + query)),
        ], back: ("/console/explorer", t("Explorer")))
    }

    /// Assets as rows: code, issuer, holders, supply; each leads to its page.
    func assetTable(_ assets: [AssetStats], _ t: ConsoleText) -> String {
        let rows = assets.map { stats -> [Cell] in
            [
                Cell(text: stats.asset.code?.text ?? "", href: "/console/explorer/assets/\(stats.asset.description)"),
                Cell(text: stats.asset.issuer?.strKey ?? "", href: "/console/explorer/accounts/\(stats.asset.issuer?.strKey ?? "")", code: true),
                Cell(text: String(stats.tally.totalAccounts), num: true),
                Cell(text: Amount.format(stats.tally.balances.reduce(0, +)), num: true),
            ]
        }
        return Self.table([Column(title: t("Asset")), Column(title: t("Issuer")), Column(title: t("Holders"), num: true), Column(title: t("Supply"), num: true)],
                          rows, empty: t("No issued assets are held yet."))
    }

    /// `/console/explorer/assets` (`?code=`, `?after=CODE_ISSUER_TYPE`): Horizon's `/assets`, as a table.
    func explorerAssets(_ scope: Scope, _ request: Request) async throws -> Response {
        let t = scope.text
        let code = Self.queryValue(request, "code")
        let after = try? HorizonQuery.assetCursor(Self.queryValue(request, "after"))
        let limit = 50
        let assets = try await horizon.reader.assets(KeyedPage(after: after, limit: limit), code: code.isEmpty ? nil : code, issuer: nil)
        let next = assets.count == limit
            ? "/console/explorer/assets?" + (code.isEmpty ? "" : "code=\(Self.queryEscaped(code))&") + "after=\(Self.queryEscaped(assets[limit - 1].pagingToken))" : nil
        let json = "/assets?limit=\(limit)" + (code.isEmpty ? "" : "&asset_code=\(Self.queryEscaped(code))")
        return sectionsPage(scope, title: t("Assets"), heading: code.isEmpty ? t("Assets") : "\(t("Assets")): \(code)", current: "explorer", sections: [
            Section(title: t("Assets"), text: t("Issued assets with their holders, by code."), html: assetTable(assets, t) + jsonLink(json), pager: next, pagerText: t("More assets")),
        ], back: ("/console/explorer", t("Explorer")))
    }

    /// `/console/explorer/assets/CODE:ISSUER`: the asset as `/assets` counts it (holders and what
    /// they hold, by authorization, and the supply: all of it), its issuer's flags, and its
    /// holders as `/accounts?asset=` lists them, paged.
    func explorerAsset(_ scope: Scope, _ request: Request, asset text: String) async throws -> Response {
        let t = scope.text
        let text = text.removingPercentEncoding ?? text
        guard let asset = try? Asset(parsing: text), let code = asset.code, let issuer = asset.issuer else { return notFound(scope) }
        let resources = horizon.resources(for: request)
        let stats = try await horizon.reader.assets(KeyedPage(limit: 1), code: code.text, issuer: issuer).first { $0.asset == asset }
        let issuerEntry = try await horizon.reader.account(issuer)?.account
        let after = try? AccountID(Self.queryValue(request, "after"))
        let limit = 50
        let holders = try await horizon.reader.accounts(holding: asset, KeyedPage(after: after, limit: limit))
        let rows = holders.map { record -> [Cell] in
            let line = record.trustLines.first { $0.asset == asset }
            let id = record.account.accountID.strKey
            return [
                Cell(text: id, href: "/console/explorer/accounts/\(id)", code: true),
                Cell(text: line.map { Amount.format($0.balance) } ?? "–", num: true),
                Cell(text: line.map { $0.limit == .max ? t("none") : Amount.format($0.limit) } ?? "–", num: true),
                Cell(text: line.map { Self.authorizationName(TrustLineAuthorization(flags: $0.flags), t) } ?? "–"),
            ]
        }
        var facts: [(String, String, Bool)] = [(t("Issuer"), issuer.strKey, true)]
        if let stats {
            let document = resources.asset(stats, issuer: issuerEntry)
            let tally = stats.tally
            facts.append((t("Supply"), Amount.format(tally.balances.reduce(0, +)) + " \(code.text)", false))
            facts.append((t("Holders"), String(tally.totalAccounts), false))
            for authorization in TrustLineAuthorization.allCases {
                facts.append(("\(t("Holders")): \(Self.authorizationName(authorization, t))",
                              "\(tally[accounts: authorization]) · \(Amount.format(tally[balance: authorization])) \(code.text)", false))
            }
            facts += Self.documentFacts(document, skipping: ["asset_type", "asset_code", "asset_issuer", "paging_token", "accounts", "balances", "amount", "num_accounts"])
        } else {
            facts.append((t("Holders"), "0", false))
        }
        let next = holders.count == limit ? "/console/explorer/assets/\(asset.description)?after=\(holders[limit - 1].account.accountID.strKey)" : nil
        return sectionsPage(scope, title: "\(t("Asset")) \(code.text)", heading: "\(t("Asset")) \(code.text)", current: "explorer", sections: [
            Section(title: t("Asset"), html: Self.facts(facts) + jsonLink("/assets?asset_code=\(code.text)&asset_issuer=\(issuer.strKey)")),
            Section(title: t("Holders"), text: t("Every account with a trustline to it."),
                    html: Self.table([Column(title: t("Account")), Column(title: t("Balance"), num: true), Column(title: t("Limit"), num: true), Column(title: t("Authorization"))],
                                     rows, empty: t("No account holds it.")) + jsonLink("/accounts?asset=\(asset.description)&limit=\(limit)"),
                    pager: next, pagerText: t("More holders")),
        ], back: ("/console/explorer", t("Explorer")))
    }

    static func authorizationName(_ authorization: TrustLineAuthorization, _ t: ConsoleText) -> String {
        switch authorization {
        case .authorized: t("authorized")
        case .authorizedToMaintainLiabilities: t("to maintain liabilities")
        case .unauthorized: t("not authorized")
        }
    }

    static func assetName(_ asset: Asset) -> String {
        guard let code = asset.code, let issuer = asset.issuer else { return "XLM" }
        return "\(code.text) (\(issuer.strKey.prefix(4))…\(issuer.strKey.suffix(4)))"
    }

    func jsonLink(_ path: String) -> String {
        ConsoleTemplates.link.render(["href": path, "text": "Horizon's JSON"])
    }

}
