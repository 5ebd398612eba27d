import Foundation
import StellarBase

/// A SEP-7 `web+stellar:pay` request: pay `amount` of `asset` to `destination`, with a memo.
/// Any Stellar wallet that speaks SEP-7 opens one; ``init(parsing:network:)`` checks every field
/// before a wallet pays it.
public struct PayURI: Sendable, Equatable {
    public var destination: AccountID
    /// Stroops; nil lets the payer choose.
    public var amount: Int64?
    public var asset: Asset
    public var memo: Memo
    /// A message for the payer (at most 300 characters, as SEP-7 says).
    public var message: String?
    public var networkPassphrase: String?

    public init(destination: AccountID, amount: Int64?, asset: Asset = .native, memo: String? = nil, message: String? = nil, networkPassphrase: String? = nil) {
        self.destination = destination
        self.amount = amount
        self.asset = asset
        self.memo = memo.flatMap { try? Memo.text($0) } ?? .none
        self.message = message
        self.networkPassphrase = networkPassphrase
    }

    /// Characters left as they are in a query value (RFC 3986's unreserved ones).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public var uri: String {
        var fields: [(String, String)] = [("destination", destination.strKey)]
        if let amount { fields.append(("amount", Self.decimal(amount))) }
        switch asset {
        case .native: break
        case .alphanum4(let code, let issuer), .alphanum12(let code, let issuer):
            fields += [("asset_code", code.text), ("asset_issuer", issuer.strKey)]
        }
        switch memo {
        case .none: break
        case .text(let bytes): fields += [("memo", String(decoding: bytes, as: UTF8.self)), ("memo_type", "MEMO_TEXT")]
        case .id(let id): fields += [("memo", String(id)), ("memo_type", "MEMO_ID")]
        case .hash(let hash): fields += [("memo", Data(hash.bytes).base64EncodedString()), ("memo_type", "MEMO_HASH")]
        case .return(let hash): fields += [("memo", Data(hash.bytes).base64EncodedString()), ("memo_type", "MEMO_RETURN")]
        }
        if let message { fields.append(("msg", message)) }
        if let networkPassphrase { fields.append(("network_passphrase", networkPassphrase)) }
        return "web+stellar:pay?" + fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? "")" }.joined(separator: "&")
    }

    /// An amount without trailing zeros: "50", "12.5", "0.0000001".
    static func decimal(_ stroops: Int64) -> String {
        var text = Amount.format(stroops)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Reads and checks a `web+stellar:pay` URI: a valid destination, a positive amount with at
    /// most seven decimals, an asset code and issuer together, a memo valid for its type, a
    /// message of at most 300 characters, and, when it names a network, `network`'s passphrase.
    /// - Throws: ``WalletError`` (`uri_invalid`) naming the field.
    public init(parsing text: String, network: Network? = nil) throws(WalletError) {
        func invalid(_ detail: String) -> WalletError { WalletError(.invalidURI, "Invalid payment URI: \(detail)") }
        let prefix = "web+stellar:pay?"
        guard text.count <= 4_096 else { throw invalid("longer than 4096 characters") }
        guard text.hasPrefix(prefix) else { throw invalid("it must start with \(prefix)") }
        var fields: [String: String] = [:]
        for pair in text.dropFirst(prefix.count).split(separator: "&", omittingEmptySubsequences: false) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let key = String(parts[0]).removingPercentEncoding,
                  let value = String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding else {
                throw invalid("\"\(pair.prefix(40))\" is not a field")
            }
            guard fields[key] == nil else { throw invalid("\(key) is given twice") }
            fields[key] = value
        }
        guard let destinationText = fields["destination"] else { throw invalid("destination is required") }
        guard let destination = try? AccountID(destinationText) else { throw invalid("destination is not a Stellar address") }
        self.destination = destination
        if let amountText = fields["amount"] {
            guard let stroops = try? Amount.parse(amountText), stroops > 0 else { throw invalid("amount must be a positive number with at most 7 decimals") }
            amount = stroops
        } else {
            amount = nil
        }
        switch (fields["asset_code"], fields["asset_issuer"]) {
        case (nil, nil):
            asset = .native
        case (let code?, let issuerText?):
            guard let issuer = try? AccountID(issuerText) else { throw invalid("asset_issuer is not a Stellar address") }
            guard let parsed = try? Asset(code: code, issuer: issuer) else { throw invalid("asset_code must be 1 to 12 letters or digits") }
            asset = parsed
        default:
            throw invalid("asset_code and asset_issuer go together")
        }
        let memoType = fields["memo_type"] ?? "MEMO_TEXT"
        if let memoText = fields["memo"] {
            switch memoType {
            case "MEMO_TEXT":
                guard let text = try? Memo.text(memoText) else { throw invalid("a text memo holds at most 28 bytes") }
                memo = text
            case "MEMO_ID":
                guard let id = UInt64(memoText) else { throw invalid("an id memo is a whole number from 0 to 18446744073709551615") }
                memo = .id(id)
            case "MEMO_HASH", "MEMO_RETURN":
                guard let data = Data(base64Encoded: memoText), data.count == 32 else {
                    throw invalid("a hash memo is 32 bytes in base64")
                }
                memo = memoType == "MEMO_HASH" ? .hash(Bytes32(data)) : .return(Bytes32(data))
            default:
                throw invalid("memo_type must be MEMO_TEXT, MEMO_ID, MEMO_HASH or MEMO_RETURN")
            }
        } else {
            guard fields["memo_type"] == nil else { throw invalid("memo_type without a memo") }
            memo = .none
        }
        if let message = fields["msg"], message.count > 300 { throw invalid("msg is longer than 300 characters") }
        message = fields["msg"]
        networkPassphrase = fields["network_passphrase"]
        if let networkPassphrase, let network, networkPassphrase != network.passphrase {
            throw invalid("it is for the network \"\(networkPassphrase)\", not \"\(network.passphrase)\"")
        }
    }
}
