import Foundation
import Hummingbird
import Ledger
import StellarBase
import Store

/// Reads and checks a request's query parameters the way Horizon does: a bad value is a 400
/// naming the parameter in `extras.invalid_field`.
struct HorizonQuery {
    let parameters: [String: String]

    init(_ request: Request) {
        // Decoded as Go's url.Query (Horizon's) decodes them: a `+` is a space, then percent escapes.
        var parameters: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let key = decode(parts[0])
            if parameters[key] == nil { parameters[key] = parts.count == 2 ? decode(parts[1]) : "" }
        }
        self.parameters = parameters
    }

    /// A value written into a link's query string (`&`, `=` and `+` escaped too).
    static func escaped(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+"))) ?? value
    }

    subscript(name: String) -> String? {
        guard let value = parameters[name], !value.isEmpty else { return nil }
        return value
    }

    /// Whether the cursor is `now`: only records made after the request.
    var cursorIsNow: Bool { self["cursor"] == "now" }

    /// `cursor`, `limit` (1-200, default 10) and `order` (asc, desc).
    /// - Parameter now: the paging token that `cursor=now` stands for.
    func page(now: Int64) throws(ProblemError) -> PageRequest {
        let (limit, descending) = try limitAndOrder()
        var page = PageRequest(limit: limit, descending: descending)
        if let cursor = self["cursor"] {
            if cursor == "now" {
                page.cursor = now
            } else {
                guard let value = Int64(cursor), value >= 0 else { throw .invalid("cursor", "cursor must be a paging token (a non-negative whole number) or \"now\", not \"\(cursor)\"") }
                page.cursor = value
            }
        }
        return page
    }

    /// `limit` (1-200, default 10) and `order` (asc, desc).
    func limitAndOrder() throws(ProblemError) -> (limit: Int, descending: Bool) {
        var descending = false
        if let order = self["order"] {
            guard order == "asc" || order == "desc" else { throw .invalid("order", "order must be \"asc\" or \"desc\", not \"\(order)\"") }
            descending = order == "desc"
        }
        guard let limit = self["limit"] else { return (10, descending) }
        guard let value = Int(limit), PageRequest.limits.contains(value) else { throw .invalid("limit", "limit must be a whole number from 1 to 200, not \"\(limit)\"") }
        return (value, descending)
    }

    /// `asset_code`: 1 to 12 letters and digits.
    func assetCode() throws(ProblemError) -> String? {
        guard let code = self["asset_code"] else { return nil }
        guard (1...12).contains(code.utf8.count), code.utf8.allSatisfy(AssetCode.isAllowed) else {
            throw .invalid("asset_code", "an asset code has 1 to 12 letters and digits, not \"\(code)\"")
        }
        return code
    }

    /// `join`: only `transactions` is known.
    func checkJoin() throws(ProblemError) {
        guard let join = self["join"] else { return }
        guard join == "transactions" else { throw .invalid("join", "join is transactions, the only resource an operation embeds, not \"\(join)\"") }
    }

    /// `memo`: a memo as Horizon writes it (text, id, or base64 of a hash), at most 64 bytes.
    func memo() throws(ProblemError) -> String? {
        guard let memo = self["memo"] else { return nil }
        guard memo.utf8.count <= 64 else { throw .invalid("memo", "memo is at most 64 bytes: a text memo, an id memo's number, or a hash memo in base64") }
        return memo
    }

    /// `asset`: `native` or `CODE:ISSUER`, an asset a payment moved.
    func paymentAsset() throws(ProblemError) -> Asset? {
        guard let text = self["asset"] else { return nil }
        return try Self.asset(text, field: "asset")
    }

    /// Beyond Horizon: transactions by memo and by an asset their payments moved.
    func transactionFilter(account: AccountID?) throws(ProblemError) -> TransactionFilter {
        TransactionFilter(account: account, memo: try memo(), asset: try paymentAsset(), includeFailed: try includeFailed())
    }

    /// Beyond Horizon: operations (payments) by memo and by the asset they moved.
    func operationFilter(account: AccountID?, paymentsOnly: Bool) throws(ProblemError) -> OperationFilter {
        OperationFilter(account: account, memo: try memo(), asset: try paymentAsset(), paymentsOnly: paymentsOnly, includeFailed: try includeFailed())
    }

    func includeFailed() throws(ProblemError) -> Bool {
        guard let value = self["include_failed"] else { return false }
        guard let flag = Bool(value) else { throw .invalid("include_failed", "include_failed must be true or false, not \"\(value)\"") }
        return flag
    }

    func accountID(_ name: String) throws(ProblemError) -> AccountID? {
        guard let text = self[name] else { return nil }
        return try Self.accountID(text, field: name)
    }

    static func accountID(_ text: String, field: String) throws(ProblemError) -> AccountID {
        do {
            return try AccountID(text)
        } catch {
            throw .invalid(field, "\(field) must be an account address (G...): \(error)")
        }
    }

    func amount(_ name: String) throws(ProblemError) -> Int64 {
        guard let text = self[name] else { throw .invalid(name, "\(name) is required") }
        do {
            let value = try Amount.parse(text)
            guard value > 0 else { throw ProblemError.invalid(name, "\(name) must be positive") }
            return value
        } catch let error as ProblemError {
            throw error
        } catch {
            throw .invalid(name, "\(name) is not an amount: \(error)")
        }
    }

    /// An asset given as `PREFIX_asset_type`, `PREFIX_asset_code`, `PREFIX_asset_issuer`, or as
    /// `PREFIX` (or `PREFIX_asset`) = `native` | `CODE:ISSUER`; nil when none is given.
    func asset(_ prefix: String) throws(ProblemError) -> Asset? {
        if let text = self[prefix] ?? self[prefix + "_asset"] {
            return try Self.asset(text, field: prefix)
        }
        guard let type = self[prefix + "_asset_type"] else {
            if self[prefix + "_asset_code"] != nil || self[prefix + "_asset_issuer"] != nil {
                throw .invalid(prefix + "_asset_type", "\(prefix)_asset_type is required with \(prefix)_asset_code and \(prefix)_asset_issuer")
            }
            return nil
        }
        switch type {
        case "native":
            return .native
        case "credit_alphanum4", "credit_alphanum12":
            guard let code = self[prefix + "_asset_code"] else { throw .invalid(prefix + "_asset_code", "\(prefix)_asset_code is required for \(type)") }
            guard let issuerText = self[prefix + "_asset_issuer"] else { throw .invalid(prefix + "_asset_issuer", "\(prefix)_asset_issuer is required for \(type)") }
            let issuer = try Self.accountID(issuerText, field: prefix + "_asset_issuer")
            let asset: Asset
            do {
                asset = try Asset(code: code, issuer: issuer)
            } catch {
                throw .invalid(prefix + "_asset_code", "\(error)")
            }
            guard (type == "credit_alphanum4") == (code.utf8.count <= 4) else {
                throw .invalid(prefix + "_asset_type", "\(code) is not a \(type) code")
            }
            return asset
        default:
            throw .invalid(prefix + "_asset_type", "\(prefix)_asset_type must be native, credit_alphanum4 or credit_alphanum12, not \"\(type)\"")
        }
    }

    func requiredAsset(_ prefix: String) throws(ProblemError) -> Asset {
        guard let asset = try asset(prefix) else { throw .invalid(prefix + "_asset_type", "\(prefix)_asset_type is required") }
        return asset
    }

    /// A comma-separated list of assets (`native,USDC:G...`).
    func assetList(_ name: String) throws(ProblemError) -> [Asset]? {
        guard let text = self[name] else { return nil }
        var assets: [Asset] = []
        for part in text.split(separator: ",") {
            assets.append(try Self.asset(String(part), field: name))
        }
        guard !assets.isEmpty, assets.count <= 15 else { throw .invalid(name, "\(name) must list 1 to 15 assets") }
        return assets
    }

    /// An `/assets` paging token, `CODE_ISSUER_TYPE` (Horizon's).
    static func assetCursor(_ text: String) throws(ProblemError) -> AssetCursor {
        let parts = text.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, ["credit_alphanum4", "credit_alphanum12"].contains(parts[2]) else {
            throw .invalid("cursor", "an assets cursor is CODE_ISSUER_TYPE, as the paging tokens, not \"\(text)\"")
        }
        return AssetCursor(code: String(parts[0]), issuer: String(parts[1]))
    }

    static func asset(_ text: String, field: String) throws(ProblemError) -> Asset {
        do {
            return try Asset(parsing: text)
        } catch {
            throw .invalid(field, "\(field): \(error)")
        }
    }
}
