import Anchor
import AnchorCore
import Crypto
import Foundation
import Gateway
import GatewayCore
import Hummingbird
import Logging
import TenderJSON

/// SEP-24 under `/sep24`: `/info`, the interactive deposit and withdrawal, `/transaction` and
/// `/transactions`; and the interactive pages the wallet opens (plain forms, no script, the
/// design system's style sheet, a strict CSP). The browser proves it opened the one-time link
/// with a cookie for that transfer alone (HttpOnly, SameSite=Lax so the payment page's return
/// carries it), and each form with a token derived from it.
struct TransferRoutes: Sendable {
    let transfers: TransferService
    let quotes: QuoteService
    let customers: CustomerService
    let anchor: AnchorRoutes
    let key: [UInt8]
    let logger: Logger

    func register(on router: Router<BasicRequestContext>) {
        router.get("/sep24/info") { _, _ in await anchor.answer { info() } }
        // The toml's base URLs answer too, each with what lies below it.
        for (base, paths) in [
            ("/kyc", ["/customer"]), ("/sep6", ["/info", "/deposit", "/withdraw", "/deposit-exchange", "/withdraw-exchange", "/transaction", "/transactions"]),
            ("/sep24", ["/info", "/transactions/deposit/interactive", "/transactions/withdraw/interactive", "/transaction", "/transactions"]),
            ("/sep38", ["/info", "/prices", "/price", "/quote"]),
        ] {
            router.get(RouterPath(base)) { request, _ in
                await anchor.answer { .object([("endpoints", .array(paths.map { .string(AnchorRoutes.base(request) + base + $0) }))]) }
            }
        }
        for kind in [TransferMachine.Kind.deposit, .withdrawal] {
            let path = kind == .deposit ? "deposit" : "withdraw"
            router.post("/sep24/transactions/\(path)/interactive") { request, _ in
                var request = request
                return await anchor.answer {
                    let user = try await anchor.user(request)
                    let fields = try await AnchorRoutes.body(&request)
                    let (record, token) = try await transfers.start(kind, user: user, assetCode: fields["asset_code"], account: fields["account"], lang: fields["lang"])
                    let url = "\(AnchorRoutes.base(request))/sep24/interactive/\(record.id)?token=\(token)"
                    return .object([("type", "interactive_customer_info_needed"), ("url", .string(url)), ("id", .string(record.id))])
                }
            }
        }
        for prefix in ["/sep24", "/sep6"] {
        router.get("\(prefix)/transaction") { request, _ in
            await anchor.answer {
                let user = try await anchor.user(request)
                let query = AnchorRoutes.query(request)
                let record = try await transfers.transfer(user, id: query["id"], stellarTransaction: query["stellar_transaction_id"], external: query["external_transaction_id"])
                return .object([("transaction", try await json(record, base: AnchorRoutes.base(request)))])
            }
        }
        router.get("\(prefix)/transactions") { request, _ in
            await anchor.answer {
                let user = try await anchor.user(request)
                let query = AnchorRoutes.query(request)
                guard let code = query["asset_code"], transfers.asset(code) != nil else {
                    throw AnchorFailure.badRequest(code: "invalid_asset", message: "asset_code is required: one of \(transfers.assets.map(\.code).joined(separator: ", "))")
                }
                // `deposit`, `withdrawal`, or (SEP-6) one of their exchanges.
                var kind: TransferMachine.Kind?
                var exchange: Bool?
                if let text = query["kind"], !text.isEmpty {
                    let bare = text.hasSuffix("-exchange") ? String(text.dropLast(9)) : text
                    guard let parsed = TransferMachine.Kind(rawValue: bare) else {
                        throw AnchorFailure.badRequest(code: "invalid_request", message: "kind is deposit, withdrawal, deposit-exchange or withdrawal-exchange")
                    }
                    kind = parsed
                    exchange = text.hasSuffix("-exchange")
                }
                var limit = 100
                if let text = query["limit"], !text.isEmpty {
                    guard let value = Int(text), (1...200).contains(value) else { throw AnchorFailure.badRequest(code: "invalid_request", message: "limit is 1 to 200") }
                    limit = value
                }
                var since: Int64?
                if let text = query["no_older_than"], !text.isEmpty {
                    guard let date = try? Date(text, strategy: .iso8601) else { throw AnchorFailure.badRequest(code: "invalid_request", message: "no_older_than is an ISO 8601 UTC time") }
                    since = Int64(date.timeIntervalSince1970)
                }
                let records = try await transfers.transfers(user, assetCode: code, kind: kind, limit: limit, olderThan: query["paging_id"], noOlderThan: since)
                    .filter { exchange == nil || ($0.exchange == true) == exchange }
                var list: [JSONValue] = []
                for record in records { list.append(try await json(record, base: AnchorRoutes.base(request))) }
                return .object([("transactions", .array(list))])
            }
        }
        }
        registerSEP6(on: router)
        registerExchanges(on: router)
        registerSEP38(on: router)
        for path in ["/sep24/info", "/sep24/transactions/deposit/interactive", "/sep24/transactions/withdraw/interactive", "/sep24/transaction", "/sep24/transactions",
                     "/sep6/info", "/sep6/deposit", "/sep6/withdraw", "/sep6/deposit-exchange", "/sep6/withdraw-exchange", "/sep6/transaction", "/sep6/transactions",
                     "/sep38/info", "/sep38/prices", "/sep38/price", "/sep38/quote", "/sep38/quote/:id"] {
            router.on(RouterPath(path), method: .options) { _, _ in AnchorRoutes.response(.noContent, body: nil) }
        }
        router.get("/sep24/interactive/:id") { request, context in await page { try await open(request, id: context.parameters.get("id") ?? "") } }
        router.post("/sep24/interactive/:id") { request, context in
            var request = request
            return await page { try await submit(&request, id: context.parameters.get("id") ?? "") }
        }
        router.get("/sep24/interactive/:id/paid") { request, context in await page { try await paid(request, id: context.parameters.get("id") ?? "") } }
        router.get("/sep24/more_info/:id") { request, context in await page { try await moreInfo(request, id: context.parameters.get("id") ?? "") } }
    }

    // MARK: SEP-6

    func registerSEP6(on router: Router<BasicRequestContext>) {
        router.get("/sep6/info") { _, _ in
            await anchor.answer {
                func entry(_ asset: TransferAsset, deposit: Bool) -> (String, JSONValue) {
                    var fields: [(String, JSONValue)] = [
                        ("enabled", true), ("authentication_required", true),
                        ("min_amount", Self.number(asset.minimum)),
                        ("max_amount", Self.number(asset.maximum)),
                        ("fee_fixed", Self.number(deposit ? asset.depositFixed : asset.withdrawFixed)),
                        ("fee_percent", deposit ? .raw(Array(Self.percent(asset.depositPercentBasisPoints).utf8)) : 0),
                    ]
                    if deposit {
                        fields.append(("funding_methods", .array(asset.currency.code == "eur" ? ["card", "ideal"] : ["card"])))
                    } else {
                        fields.append(("types", .object([("bank_account", .object([("fields", .object([]))]))])))
                    }
                    return (asset.code, .object(fields))
                }
                return .object([
                    ("deposit", .object(transfers.assets.map { entry($0, deposit: true) })),
                    ("deposit-exchange", .object(transfers.assets.map { entry($0, deposit: true) })),
                    ("withdraw", .object(transfers.assets.map { entry($0, deposit: false) })),
                    ("withdraw-exchange", .object(transfers.assets.map { entry($0, deposit: false) })),
                    ("fee", .object([("enabled", false)])),
                    ("transactions", .object([("enabled", true), ("authentication_required", true)])),
                    ("transaction", .object([("enabled", true), ("authentication_required", true)])),
                    ("features", .object([("account_creation", false), ("claimable_balances", false)])),
                ])
            }
        }
        router.get("/sep6/deposit") { request, _ in
            await sep6(request) { user, query in
                guard let asset = transfers.asset(query["asset_code"]) else {
                    throw AnchorFailure.badRequest(code: "invalid_asset", message: "asset_code is one of \(transfers.assets.map(\.code).joined(separator: ", "))")
                }
                guard let amount = try QuoteService.amount(query["amount"], "amount") else {
                    throw AnchorFailure.badRequest(code: "invalid_amount", message: "amount is required: the deposit is paid by card or iDEAL for an exact amount")
                }
                let method = PaymentMethodType(rawValue: query["funding_method"] ?? query["type"] ?? "card") ?? .card
                let (record, _) = try await transfers.start(.deposit, user: user, assetCode: asset.code, account: query["account"], lang: query["lang"])
                let base = AnchorRoutes.base(request)
                let more = moreInfoURL(record.id, base: base)
                let page = try await transfers.chooseDeposit(id: record.id, amount: amount, method: method, successURL: more, cancelURL: more, base: base)
                return .object([
                    ("id", .string(record.id)),
                    ("how", .string("Pay \(FiatConversion.format(minorUnits: amount, exponent: 2)) \(asset.currency.code.uppercased()) at \(base)\(page)")),
                    ("instructions", .object([("payment_url", .object([("value", .string(base + page)), ("description", "Tender's payment page for this deposit: card (3-D Secure) or iDEAL")]))])),
                    ("eta", 60), ("min_amount", Self.number(asset.minimum)),
                    ("max_amount", Self.number(asset.maximum)),
                    ("fee_fixed", Self.number(asset.depositFixed)),
                    ("fee_percent", .raw(Array(Self.percent(asset.depositPercentBasisPoints).utf8))),
                    ("extra_info", .object([("message", "The asset is paid to your account once the payment is settled.")])),
                ])
            }
        }
        router.get("/sep6/withdraw") { request, _ in
            await sep6(request) { user, query in
                guard let asset = transfers.asset(query["asset_code"]) else {
                    throw AnchorFailure.badRequest(code: "invalid_asset", message: "asset_code is one of \(transfers.assets.map(\.code).joined(separator: ", "))")
                }
                if let type = query["type"] ?? query["funding_method"], !type.isEmpty, type != "bank_account" {
                    throw AnchorFailure.badRequest(code: "invalid_request", message: "type is bank_account")
                }
                guard let amount = try QuoteService.amount(query["amount"], "amount") else {
                    throw AnchorFailure.badRequest(code: "invalid_amount", message: "amount is required")
                }
                let (started, _) = try await transfers.start(.withdrawal, user: user, assetCode: asset.code, account: query["account"], lang: query["lang"])
                let record = try await transfers.chooseWithdrawal(id: started.id, amount: amount)
                return .object([
                    ("account_id", .string(try await transfers.withdrawAccount())), ("memo_type", "id"), ("memo", .string(record.withdrawMemo.map(String.init) ?? "")),
                    ("id", .string(record.id)), ("eta", 60),
                    ("min_amount", Self.number(asset.minimum)),
                    ("max_amount", Self.number(asset.maximum)),
                    ("fee_fixed", Self.number(asset.withdrawFixed)), ("fee_percent", 0),
                    ("extra_info", .object([("message", .string("Send exactly \(FiatConversion.format(minorUnits: amount, exponent: 2)) \(asset.code) with the memo; the fiat is paid out once it arrives."))])),
                ])
            }
        }
    }

    /// SEP-6's exchanges: `/deposit-exchange` (fiat `source_asset` in, the anchor's
    /// `destination_asset` out) and `/withdraw-exchange` (the reverse), at a SEP-38 quote's price
    /// (`quote_id`: the user's, unexpired, unused, for these assets and this `amount` sold) or
    /// the price now.
    func registerExchanges(on router: Router<BasicRequestContext>) {
        for kind in [TransferMachine.Kind.deposit, .withdrawal] {
            router.get(kind == .deposit ? "/sep6/deposit-exchange" : "/sep6/withdraw-exchange") { request, _ in
                await sep6(request) { user, query in
                    let stellarCode = kind == .deposit ? query["destination_asset"] : query["source_asset"]
                    let fiatName = kind == .deposit ? query["source_asset"] : query["destination_asset"]
                    guard let asset = transfers.asset(stellarCode) else {
                        throw AnchorFailure.badRequest(code: "invalid_asset", message: "\(kind == .deposit ? "destination_asset" : "source_asset") is one of \(transfers.assets.map(\.code).joined(separator: ", "))")
                    }
                    guard let fiatName, let fiatAsset = Quotes.AssetName(fiatName), fiatAsset.isFiat, let fiat = GatewayCurrency.named(fiatAsset.code) else {
                        throw AnchorFailure.badRequest(code: "invalid_asset", message: "\(kind == .deposit ? "source_asset" : "destination_asset") is a fiat currency: \(quotes.fiatAssets.joined(separator: ", "))")
                    }
                    guard let amount = try QuoteService.amount(query["amount"], "amount") else {
                        throw AnchorFailure.badRequest(code: "invalid_amount", message: "amount (of source_asset) is required")
                    }
                    let stellar = "stellar:\(asset.code):\(asset.asset.issuer!.strKey)"
                    let (sell, buy) = kind == .deposit ? (fiatAsset.description, stellar) : (stellar, fiatAsset.description)
                    let id = transfers.newTransferID()
                    let amounts: (sell: Int64, fee: Int64, buy: Int64)
                    if let quoteID = query["quote_id"], !quoteID.isEmpty {
                        let quote = try await quotes.use(user, id: quoteID, sell: sell, buy: buy, sellAmount: amount, transfer: id)
                        amounts = (quote.sellAmount, quote.fee, quote.buyAmount)
                    } else {
                        let price = try quotes.price(sell: sell, buy: buy, sellAmount: FiatConversion.format(minorUnits: amount, exponent: 2), buyAmount: nil)
                        amounts = (price.sellAmount, price.fee.total, price.buyAmount)
                    }
                    let base = AnchorRoutes.base(request)
                    let (record, page) = try await transfers.startExchange(
                        kind, user: user, id: id, asset: asset, fiat: fiat, sell: amounts.sell, fee: amounts.fee, buy: amounts.buy, quote: query["quote_id"],
                        account: kind == .deposit ? query["account"] : nil, method: PaymentMethodType(rawValue: query["funding_method"] ?? "card") ?? .card,
                        successURL: moreInfoURL(id, base: base), base: base)
                    if let page {
                        return .object([
                            ("id", .string(record.id)),
                            ("how", .string("Pay \(FiatConversion.format(minorUnits: amounts.sell, exponent: 2)) \(fiat.code.uppercased()) at \(base)\(page)")),
                            ("instructions", .object([("payment_url", .object([("value", .string(base + page)), ("description", "Tender's payment page for this exchange")]))])),
                            ("eta", 60),
                        ])
                    }
                    return .object([
                        ("account_id", .string(try await transfers.withdrawAccount())), ("memo_type", "id"),
                        ("memo", .string(record.withdrawMemo.map(String.init) ?? "")), ("id", .string(record.id)), ("eta", 60),
                    ])
                }
            }
        }
    }

    /// A SEP-6 request: signed in, and the customer's KYC accepted; else SEP-6's 403 answers
    /// (the fields still needed, or the status of the review).
    func sep6(_ request: Request, _ body: @escaping (AnchorUser, [String: String]) async throws -> JSONValue) async -> Response {
        let query = AnchorRoutes.query(request)
        let user: AnchorUser
        let status: KYC.Status?
        do {
            user = try await anchor.user(request)
            status = try await customers.status(user, memo: user.memo ?? user.muxedID)
        } catch {
            return await anchor.answer { throw error }
        }
        switch status {
        case nil, .needsInfo?:
            return AnchorRoutes.response(.forbidden, body: .object([
                ("type", "non_interactive_customer_info_needed"),
                ("fields", .array(KYC.fields.filter { !$0.optional }.map { .string($0.name) })),
            ]))
        case .processing?:
            return AnchorRoutes.response(.forbidden, body: .object([("type", "customer_info_status"), ("status", "pending"), ("eta", .number(KYC.reviewSeconds))]))
        case .rejected?:
            return AnchorRoutes.response(.forbidden, body: .object([("type", "customer_info_status"), ("status", "denied")]))
        case .accepted?:
            return await anchor.answer { try await body(user, query) }
        }
    }

    func moreInfoURL(_ id: String, base: String) -> String { "\(base)/sep24/more_info/\(id)?sig=\(signature("more \(id)"))" }

    // MARK: SEP-38

    func registerSEP38(on router: Router<BasicRequestContext>) {
        router.get("/sep38/info") { _, _ in
            await anchor.answer {
                var assets: [JSONValue] = quotes.stellarAssets.map { .object([("asset", .string($0.name))]) }
                for fiat in quotes.fiatAssets {
                    let methods: [JSONValue] = fiat == "iso4217:EUR" ? [.object([("name", "card"), ("description", "Card, with 3-D Secure")]), .object([("name", "ideal"), ("description", "iDEAL")])]
                        : [.object([("name", "card"), ("description", "Card, with 3-D Secure")])]
                    assets.append(.object([
                        ("asset", .string(fiat)), ("sell_delivery_methods", .array(methods)),
                        ("buy_delivery_methods", .array([.object([("name", "bank_account"), ("description", "Paid out to your bank account")])])),
                    ]))
                }
                return .object([("assets", .array(assets))])
            }
        }
        router.get("/sep38/prices") { request, _ in
            await anchor.answer {
                let query = AnchorRoutes.query(request)
                let prices = try quotes.prices(sell: query["sell_asset"], sellAmount: query["sell_amount"])
                return .object([("buy_assets", .array(prices.map { price in
                    .object([("asset", .string(price.buy.description)), ("price", .string(price.totalPrice)), ("decimals", 2)])
                }))])
            }
        }
        router.get("/sep38/price") { request, _ in
            await anchor.answer {
                let query = AnchorRoutes.query(request)
                let price = try quotes.price(sell: query["sell_asset"], buy: query["buy_asset"], sellAmount: query["sell_amount"], buyAmount: query["buy_amount"])
                return .object([
                    ("total_price", .string(price.totalPrice)), ("price", .string(price.price)),
                    ("sell_amount", .string(FiatConversion.format(minorUnits: price.sellAmount, exponent: 2))),
                    ("buy_amount", .string(FiatConversion.format(minorUnits: price.buyAmount, exponent: 2))),
                    ("fee", .object([("total", .string(FiatConversion.format(minorUnits: price.fee.total, exponent: 2))), ("asset", .string(price.fee.asset.description))])),
                ])
            }
        }
        router.post("/sep38/quote") { request, _ in
            var request = request
            return await anchor.answer(status: .created) {
                let user = try await anchor.user(request)
                let fields = try await AnchorRoutes.body(&request)
                let quote = try await quotes.quote(
                    user, sell: fields["sell_asset"], buy: fields["buy_asset"], sellAmount: fields["sell_amount"], buyAmount: fields["buy_amount"],
                    expireAfter: fields["expire_after"])
                return Self.quote(quote)
            }
        }
        router.get("/sep38/quote/:id") { request, context in
            await anchor.answer {
                let user = try await anchor.user(request)
                return Self.quote(try await quotes.quote(user, id: context.parameters.get("id") ?? ""))
            }
        }
    }

    static func quote(_ quote: QuoteRecord) -> JSONValue {
        .object([
            ("id", .string(quote.id)), ("expires_at", time(quote.expiresAt)), ("total_price", .string(quote.totalPrice)), ("price", .string(quote.price)),
            ("sell_asset", .string(quote.sellAsset)), ("sell_amount", .string(FiatConversion.format(minorUnits: quote.sellAmount, exponent: 2))),
            ("buy_asset", .string(quote.buyAsset)), ("buy_amount", .string(FiatConversion.format(minorUnits: quote.buyAmount, exponent: 2))),
            ("fee", .object([("total", .string(FiatConversion.format(minorUnits: quote.fee, exponent: 2))), ("asset", .string(quote.feeAsset))])),
        ])
    }

    // MARK: SEP-24's JSON

    func info() -> JSONValue {
        func entry(_ asset: TransferAsset, deposit: Bool) -> (String, JSONValue) {
            var fields: [(String, JSONValue)] = [
                ("enabled", true),
                ("min_amount", Self.number(asset.minimum)),
                ("max_amount", Self.number(asset.maximum)),
            ]
            if deposit {
                fields += [("fee_fixed", Self.number(asset.depositFixed)),
                           ("fee_percent", .raw(Array(Self.percent(asset.depositPercentBasisPoints).utf8)))]
            } else {
                fields += [("fee_fixed", Self.number(asset.withdrawFixed)), ("fee_percent", 0)]
            }
            return (asset.code, .object(fields))
        }
        return .object([
            ("deposit", .object(transfers.assets.map { entry($0, deposit: true) })),
            ("withdraw", .object(transfers.assets.map { entry($0, deposit: false) })),
            ("fee", .object([("enabled", false)])),
            ("features", .object([("account_creation", false), ("claimable_balances", false)])),
        ])
    }

    /// Hundredths as a JSON number with two decimals (SEP's `min_amount`, `fee_fixed`...).
    static func number(_ minor: Int64) -> JSONValue { .raw(Array(FiatConversion.format(minorUnits: minor, exponent: 2).utf8)) }

    static func percent(_ basisPoints: Int64) -> String {
        basisPoints % 100 == 0 ? String(basisPoints / 100) : "\(basisPoints / 100).\(String(format: "%02d", basisPoints % 100).replacingOccurrences(of: "0$", with: "", options: .regularExpression))"
    }

    static func time(_ seconds: Int64?) -> JSONValue {
        guard let seconds else { return .null }
        return .string(Date(timeIntervalSince1970: TimeInterval(seconds)).ISO8601Format())
    }

    func json(_ record: TransferRecord, base: String) async throws -> JSONValue {
        let machine = record.machine
        let money = { (minor: Int64?) -> JSONValue in minor.map { .string(FiatConversion.format(minorUnits: $0, exponent: 2)) } ?? .null }
        let asset = transfers.asset(record.assetCode)
        let stellarAsset = asset.map { "stellar:\($0.code):\($0.asset.issuer!.strKey)" } ?? ""
        let fiat = "iso4217:\(record.currency.uppercased())"
        var fields: [(String, JSONValue)] = [
            ("id", .string(record.id)), ("kind", .string(machine.kind.name + (record.exchange == true ? "-exchange" : ""))), ("status", .string(machine.status.rawValue)),
            ("more_info_url", .string("\(base)/sep24/more_info/\(record.id)?sig=\(signature("more \(record.id)"))")),
            ("amount_in", money(machine.amountIn)), ("amount_in_asset", .string(machine.kind == .deposit ? fiat : stellarAsset)),
            ("amount_out", money(machine.amountOut)), ("amount_out_asset", .string(machine.kind == .deposit ? stellarAsset : fiat)),
            ("amount_fee", money(machine.amountFee)),
            ("fee_details", machine.amountFee.map { fee in .object([("total", money(fee)), ("asset", .string(machine.kind == .deposit ? fiat : stellarAsset))]) } ?? .null),
            ("started_at", Self.time(record.started)), ("updated_at", Self.time(record.updated)), ("completed_at", Self.time(record.completedAt)),
            ("stellar_transaction_id", machine.stellarTransaction.map(JSONValue.string) ?? .null),
            ("external_transaction_id", (machine.external ?? record.session).map(JSONValue.string) ?? .null),
            ("message", machine.message.map(JSONValue.string) ?? .null),
            ("refunded", .bool(machine.status == .refunded)),
        ]
        if let quote = record.quote { fields.append(("quote_id", .string(quote))) }
        if machine.kind == .deposit {
            fields.append(("to", .string(record.destination)))
        } else {
            fields.append(("from", .string(record.account)))
            if machine.status != .incomplete {
                fields += [("withdraw_anchor_account", .string(try await transfers.withdrawAccount())),
                           ("withdraw_memo", .string(record.withdrawMemo.map(String.init) ?? "")), ("withdraw_memo_type", "id")]
            }
        }
        return .object(fields)
    }

    // MARK: The interactive pages

    func signature(_ text: String) -> String {
        PaylikeRoutes.base64url(Array(HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: key))))
    }

    static func cookieName(_ id: String) -> String { "sep24_\(id.replacingOccurrences(of: "-", with: ""))" }

    /// Whether the browser opened this transfer's link.
    func proven(_ request: Request, _ id: String) -> Bool {
        let name = Self.cookieName(id)
        for part in (request.headers[.cookie] ?? "").split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == name { return GatewayService.constantTimeEqual(pair[1], signature("browser \(id)")) }
        }
        return false
    }

    /// The one-time link: used up, it leaves the browser its cookie and the form.
    func open(_ request: Request, id: String) async throws -> Response {
        let token = AnchorRoutes.query(request)["token"] ?? ""
        let record: TransferRecord
        if proven(request, id), let known = try await transfers.record(id) {
            record = known
        } else {
            record = try await transfers.openInteractive(id: id, token: token)
        }
        var response = try await form(record, error: nil, Self.text(request, record))
        response.headers[.setCookie] = "\(Self.cookieName(id))=\(signature("browser \(id)")); Path=/sep24/interactive/\(id); HttpOnly; SameSite=Lax; Max-Age=86400"
        return response
    }

    func form(_ record: TransferRecord, error: String?, amount: String = "", _ t: ConsoleText) async throws -> Response {
        guard let asset = transfers.asset(record.assetCode) else { throw AnchorFailure.notFound("transaction not found") }
        guard record.machine.status == .incomplete else { return try await statusPage(record, t) }
        let deposit = record.machine.kind == .deposit
        let code = asset.currency.code
        let fee = deposit ? "\(Self.percent(asset.depositPercentBasisPoints))% + \(t.money(asset.depositFixed, code))" : t.money(asset.withdrawFixed, code)
        let currency = code.uppercased()
        let title = t(deposit ? "Deposit {code}" : "Withdraw {code}", ["code": asset.code])
        let methods = deposit ? """
            <fieldset><legend>\(e(t("Pay by")))</legend>
            <label><input type="radio" name="method" value="card" checked> \(e(t("Card")))</label>
            \(code == "eur" ? "<label><input type=\"radio\" name=\"method\" value=\"ideal\"> iDEAL</label>" : "")
            </fieldset>
            """ : ""
        let lead = deposit
            ? t("Pay {currency} by card or bank; {code} arrives on {account}.", ["currency": currency, "code": asset.code, "account": short(record.destination)])
            : t("Send {code} from {account}; {currency} is paid out to you.", ["currency": currency, "code": asset.code, "account": short(record.account)])
        let limits = t("{min} to {max}; fee {fee}.", ["min": t.money(asset.minimum, code), "max": t.money(asset.maximum, code), "fee": fee])
        let body = """
            <h1>\(e(title))</h1>
            <p>\(e(lead))</p>
            \(error.map { "<p class=\"notice error\" role=\"alert\">\(e($0))</p>" } ?? "")
            <form method="post" action="/sep24/interactive/\(e(record.id))?locale=\(t.locale.rawValue)">
            <input type="hidden" name="csrf" value="\(signature("csrf \(record.id)"))">
            <label for="amount">\(e(t("Amount in {currency}", ["currency": currency])))</label>
            <input id="amount" name="amount" inputmode="decimal" autocomplete="transaction-amount" required value="\(e(amount))" aria-describedby="limits">
            <p id="limits" class="hint">\(e(limits))</p>
            \(methods)
            <button type="submit">\(e(t(deposit ? "Continue to payment" : "Continue")))</button>
            </form>
            """
        return Self.document(title, body, t)
    }

    func submit(_ request: inout Request, id: String) async throws -> Response {
        guard proven(request, id), var record = try await transfers.record(id) else { throw AnchorFailure.notFound("open the link from your wallet first") }
        let fields = try await AnchorRoutes.body(&request)
        guard GatewayService.constantTimeEqual(fields["csrf"] ?? "", signature("csrf \(id)")) else { throw AnchorFailure.unauthorized("this form has expired; open the page again") }
        let t = Self.text(request, record)
        let text = (fields["amount"] ?? "").trimmingCharacters(in: .whitespaces)
        // Dutch and German write the decimal point as a comma.
        let written = t.locale != .en && !text.contains(".") ? text.replacingOccurrences(of: ",", with: ".") : text
        guard let amount = FiatConversion.minorUnits(parsing: written, exponent: 2) else {
            return try await form(record, error: t("Write the amount as {example}.", ["example": t.money(1_250, record.currency)]), amount: text, t).with(status: .badRequest)
        }
        do {
            if record.machine.kind == .deposit {
                let method = PaymentMethodType(rawValue: fields["method"] ?? "card") ?? .card
                let base = AnchorRoutes.base(request)
                let page = try await transfers.chooseDeposit(
                    id: id, amount: amount, method: method, successURL: "\(base)/sep24/interactive/\(id)/paid", cancelURL: "\(base)/sep24/interactive/\(id)", base: base)
                return Self.redirect(page)
            }
            record = try await transfers.chooseWithdrawal(id: id, amount: amount)
            return try await statusPage(record, t)
        } catch let failure as AnchorFailure {
            guard case .badRequest(let code, let message) = failure else { throw failure }
            let shown = code == "invalid_amount" && transfers.asset(record.assetCode) != nil
                ? t("The amount is {min} to {max}.", ["min": t.money(transfers.asset(record.assetCode)!.minimum, record.currency), "max": t.money(transfers.asset(record.assetCode)!.maximum, record.currency)])
                : message.prefix(1).uppercased() + message.dropFirst() + "."
            return try await form(record, error: shown, amount: text, t).with(status: .badRequest)
        }
    }

    /// Back from the payment page: the deposit moves on now, not at the janitor's next round.
    func paid(_ request: Request, id: String) async throws -> Response {
        guard proven(request, id) else { throw AnchorFailure.notFound("open the link from your wallet first") }
        try await transfers.advance(id)
        guard let record = try await transfers.record(id) else { throw AnchorFailure.notFound("transaction not found") }
        return try await statusPage(record, Self.text(request, record))
    }

    func moreInfo(_ request: Request, id: String) async throws -> Response {
        guard GatewayService.constantTimeEqual(AnchorRoutes.query(request)["sig"] ?? "", signature("more \(id)")), let record = try await transfers.record(id) else {
            throw AnchorFailure.notFound("transaction not found")
        }
        return try await statusPage(record, Self.text(request, record))
    }

    func statusPage(_ record: TransferRecord, _ t: ConsoleText) async throws -> Response {
        let machine = record.machine
        let money = { (minor: Int64?, currency: String) in minor.map { t.money($0, currency) } ?? "–" }
        let outCurrency = machine.kind == .deposit ? (transfers.asset(record.assetCode)?.currency.code ?? record.currency) : record.currency
        var rows = [
            ("status", t("Status"), machine.status.rawValue), ("amount", t("Amount"), money(machine.amountIn, machine.kind == .deposit ? record.currency : transfers.asset(record.assetCode)?.currency.code ?? record.currency)),
            ("fee", t("Fee"), money(machine.amountFee, machine.kind == .deposit ? record.currency : transfers.asset(record.assetCode)?.currency.code ?? record.currency)),
            ("you-receive", t("You receive"), money(machine.amountOut, outCurrency) + (machine.kind == .deposit ? " (\(record.assetCode))" : "")),
        ]
        var extra = ""
        if machine.kind == .withdrawal, machine.status == .pendingUserTransferStart {
            let account = try await transfers.withdrawAccount()
            let amount = "<strong id=\"send-amount\">\(e(machine.amountIn.map { FiatConversion.format(minorUnits: $0, exponent: 2) } ?? ""))</strong>"
            extra = """
                <h2>\(e(t("Send the {code}", ["code": record.assetCode])))</h2>
                <p>\(GatewayTestPages.fill(t("Pay exactly {amount} {code} to {account} with the id memo {memo}. Your wallet can do it for you."), [
                    "amount": amount, "code": e(record.assetCode), "account": "<code id=\"anchor-account\">\(e(account))</code>",
                    "memo": "<code id=\"memo\">\(record.withdrawMemo.map(String.init) ?? "")</code>",
                ]))</p>
                """
        }
        if let message = machine.message { rows.append(("message", t("Message"), message)) }
        if let transaction = machine.stellarTransaction { rows.append(("ledger-transaction", t("Ledger transaction"), transaction)) }
        let facts = rows.map { "<dt>\(e($0.1))</dt><dd id=\"\($0.0)\">\(e($0.2))</dd>" }.joined(separator: "\n")
        let title = t(machine.kind == .deposit ? "Deposit of {code}" : "Withdrawal of {code}", ["code": record.assetCode])
        return Self.document(title, """
            <h1>\(e(title))</h1>
            <dl class="facts">\(facts)</dl>
            \(extra)
            <p>\(e(t("You can close this page: your wallet follows the transfer.")))</p>
            """, t)
    }

    // MARK: HTML

    func e(_ text: String) -> String { GatewayTestPages.escape(text) }

    /// The page's language: `?locale=`, else the `lang` the wallet started the transfer with,
    /// else the browser's `Accept-Language` (English, Dutch or German).
    static func text(_ request: Request, _ record: TransferRecord?) -> ConsoleText {
        let query = AnchorRoutes.query(request)["locale"]
        let lang = record?.lang.flatMap { CardTextLocale(rawValue: String($0.prefix(2)).lowercased()) }?.rawValue
        return ConsoleText(locale: ConsoleText.locale(query: query ?? lang, cookie: nil, acceptLanguage: request.headers[.acceptLanguage]))
    }

    func short(_ account: String) -> String { "\(account.prefix(4))…\(account.suffix(4))" }

    static func document(_ title: String, _ body: String, _ t: ConsoleText = ConsoleText(locale: .en)) -> Response {
        ConsoleRoutes.html("""
            <!doctype html>
            <html lang="\(t.locale.rawValue)"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(GatewayTestPages.escape(title))</title>
            <link rel="stylesheet" href="/assets/tender.css">
            </head><body>
            <header class="bar"><div class="inner"><span class="brand">\(GatewayTestPages.escape(t("Tender test anchor")))</span></div></header>
            <main id="main"><div class="card test-page">
            \(body)
            </div></main>
            </body></html>
            """, status: .ok)
    }

    static func redirect(_ location: String) -> Response { ConsoleRoutes.redirect(location) }

    /// A page, or the failure as a page.
    func page(_ body: () async throws -> Response) async -> Response {
        do {
            return try await body()
        } catch let failure as AnchorFailure {
            let (status, message): (HTTPResponse.Status, String) = switch failure {
            case .badRequest(_, let message): (.badRequest, message)
            case .unauthorized(let message): (.forbidden, message)
            case .notFound(let message): (.notFound, message)
            }
            return Self.document("Tender test anchor", "<h1>Nothing to do here</h1><p id=\"message\">\(GatewayTestPages.escape(message.prefix(1).uppercased() + message.dropFirst())).</p>").with(status: status)
        } catch {
            logger.error("anchor page failed: \(error)")
            return Self.document("Tender test anchor", "<h1>Something went wrong</h1><p>Try again in a moment.</p>").with(status: .internalServerError)
        }
    }
}

extension Response {
    func with(status: HTTPResponse.Status) -> Response {
        var response = self
        response.status = status
        return response
    }
}
