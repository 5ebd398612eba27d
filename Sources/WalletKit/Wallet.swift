import Foundation
import StellarBase

/// Why the wallet refused to do something, before or after asking the network. `message` is
/// the reference app's wording where it has one.
public struct WalletError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case recipientRequired = "recipient_required"
        case invalidAddress = "address_invalid"
        case amountRequired = "amount_required"
        case invalidAmount = "amount_invalid"
        case amountNotPositive = "amount_not_positive"
        case insufficientBalance = "balance_insufficient"
        case memoTooLong = "memo_too_long"
        case accountNotFound = "account_not_found"
        case recipientNotFound = "recipient_not_found"
        case recipientCannotReceive = "recipient_cannot_receive"
        case createBelowMinimum = "create_below_minimum"
        case issuerNotFound = "issuer_not_found"
        case invalidAsset = "asset_invalid"
        case trustlineNotEmpty = "trustline_not_empty"
        case trustlineMissing = "trustline_missing"
        case noPath = "path_not_found"
        case invalidSlippage = "slippage_invalid"
        case invalidFee = "fee_invalid"
        case invalidURI = "uri_invalid"
        case contactNotFound = "contact_not_found"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A payment as the dashboard shows it: from the wallet's side.
public struct WalletPayment: Sendable, Equatable {
    public enum Direction: String, Sendable { case sent, received }
    public let id: String
    public let direction: Direction
    /// The amount moved from the wallet's side: what it sent, or what it received.
    public let amount: String
    /// `XLM` or `CODE:ISSUER`.
    public let asset: String
    public let counterparty: String
    /// The counterparty's contact name, if it is a contact.
    public let contactName: String?
    public let type: String
    public let createdAt: String
}

extension WalletPayment {
    /// `XLM`, or `CODE:ISSUER` for an asset Horizon gives as type, code and issuer.
    public static func assetName(_ type: String?, _ code: String?, _ issuer: String?) -> String {
        type == "native" || type == nil ? "XLM" : "\(code ?? ""):\(issuer ?? "")"
    }

    /// The payment as `me` sees it, or nil for a record that moves no money to or from it.
    init?(_ record: HorizonPayment, me: String, names: [String: String]) {
        let direction: Direction
        let counterparty: String
        let amount: String
        let assetText: String
        switch record.type {
        case "create_account":
            let sent = record.funder == me
            direction = sent ? .sent : .received
            counterparty = (sent ? record.account : record.funder) ?? ""
            amount = record.startingBalance ?? "0"
            assetText = "XLM"
        case "payment", "path_payment_strict_send", "path_payment_strict_receive":
            let sent = record.from == me
            direction = sent ? .sent : .received
            counterparty = (sent ? record.to : record.from) ?? ""
            if sent, record.type != "payment" {
                amount = record.sourceAmount ?? "0"
                assetText = Self.assetName(record.sourceAssetType, record.sourceAssetCode, record.sourceAssetIssuer)
            } else {
                amount = record.amount ?? "0"
                assetText = Self.assetName(record.assetType, record.assetCode, record.assetIssuer)
            }
        case "account_merge":
            let sent = record.account == me
            direction = sent ? .sent : .received
            counterparty = (sent ? record.into : record.account) ?? ""
            amount = "all"
            assetText = "XLM"
        default:
            return nil
        }
        self.init(
            id: record.id, direction: direction, amount: amount, asset: assetText, counterparty: counterparty,
            contactName: names[counterparty], type: record.type, createdAt: record.createdAt)
    }
}

/// What a SwiftBasicPay user does, over any Horizon: balances, recent payments, trust, payments
/// and path payments, each checked before anything is submitted and signed with the PIN.
public struct Wallet: Sendable {
    public let horizon: HorizonClient
    /// The network transactions are signed for; nil asks the server (`GET /`) when the first
    /// transaction is signed, so what needs no signature works without it.
    public let network: Network?
    public let keystore: Keystore
    public let contacts: ContactBook

    public init(horizon: HorizonClient, network: Network?, keystore: Keystore, contacts: ContactBook) {
        self.horizon = horizon
        self.network = network
        self.keystore = keystore
        self.contacts = contacts
    }

    /// The wallet's own account, or `account_not_found` (fund it with friendbot).
    public func account() async throws -> HorizonAccount {
        let address = try keystore.address()
        guard let account = try await horizon.account(address) else {
            throw WalletError(.accountNotFound, "Account not found: fund \(address) first (friendbot on a test network)")
        }
        return account
    }

    /// The least XLM the account must keep: (2 + subentries) base reserves (the network's, from
    /// its latest ledger) plus what its offers may sell; nil when that overflows (an answer no
    /// real network gives).
    public static func minimumBalance(_ account: HorizonAccount, baseReserve: Int64) -> Int64? {
        let selling = account.balances.first { $0.assetType == "native" }?.sellingLiabilities.flatMap { try? Amount.parse($0) } ?? 0
        let (entries, entriesOverflow) = Int64(2).addingReportingOverflow(Int64(clamping: account.subentryCount))
        let (reserve, reserveOverflow) = entries.multipliedReportingOverflow(by: baseReserve)
        let (minimum, sumOverflow) = reserve.addingReportingOverflow(selling)
        return entriesOverflow || reserveOverflow || sumOverflow ? nil : minimum
    }

    /// The most of `asset` the account can send: for XLM the balance less the minimum balance
    /// and the fee, for other assets the balance less what offers may sell. Never negative;
    /// zero when any step would overflow.
    public static func maximumSendable(_ account: HorizonAccount, asset: Asset, fee: Int64, baseReserve: Int64) -> Int64 {
        guard let line = account.balances.first(where: { $0.asset == asset }), let balance = try? Amount.parse(line.balance) else { return 0 }
        if asset == .native {
            guard let minimum = minimumBalance(account, baseReserve: baseReserve) else { return 0 }
            let (afterReserve, reserveOverflow) = balance.subtractingReportingOverflow(minimum)
            let (afterFee, feeOverflow) = afterReserve.subtractingReportingOverflow(fee)
            return reserveOverflow || feeOverflow ? 0 : max(0, afterFee)
        }
        let selling = line.sellingLiabilities.flatMap { try? Amount.parse($0) } ?? 0
        let (available, overflow) = balance.subtractingReportingOverflow(selling)
        return overflow ? 0 : max(0, available)
    }

    /// The fees a transaction may offer per operation: 1 to UInt32.max stroops (a transaction's
    /// fee is a UInt32).
    public static let feeRange: ClosedRange<Int64> = 1...Int64(UInt32.max)

    /// Checks a fee per operation given by the user.
    /// - Throws: ``WalletError`` (`fee_invalid`) outside ``feeRange``.
    public static func checkFee(_ fee: Int64?) throws(WalletError) -> UInt32? {
        guard let fee else { return nil }
        guard feeRange.contains(fee) else {
            throw WalletError(.invalidFee, "Fee must be 1 to \(UInt32.max) stroops per operation")
        }
        return UInt32(fee)
    }

    /// Parses an amount as the payment form does.
    public static func parseAmount(_ text: String) throws(WalletError) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw WalletError(.amountRequired, "Amount is required") }
        let value: Int64
        do {
            value = try Amount.parse(trimmed)
        } catch {
            throw WalletError(.invalidAmount, "Invalid amount format")
        }
        guard value > 0 else { throw WalletError(.amountNotPositive, "Amount must be greater than 0") }
        return value
    }

    /// A contact's name or an address, as the recipient of a payment.
    public func resolveRecipient(_ text: String) throws -> AccountID {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw WalletError(.recipientRequired, "Recipient address is required") }
        if let contact = try contacts.find(trimmed) { return try AccountID(contact.address) }
        if let id = try? AccountID(trimmed) { return id }
        // Something shaped like an account whose checksum fails is a mistyped address; anything
        // else was meant as a contact's name.
        if trimmed.count == 56, trimmed.first == "G", trimmed.allSatisfy({ $0.isUppercase || ("2"..."7").contains($0) }) {
            throw WalletError(.invalidAddress, "Invalid Stellar address")
        }
        throw WalletError(.contactNotFound, "no contact named \(trimmed)")
    }

    static func memo(_ text: String?) throws(WalletError) -> Memo {
        guard let text, !text.isEmpty else { return .none }
        do {
            return try Memo.text(text)
        } catch {
            throw WalletError(.memoTooLong, "Memo must be at most 28 bytes")
        }
    }

    private func submit(_ operations: [OperationBody], account: HorizonAccount, memo: Memo = .none, fee: UInt32?, pin: String) async throws -> HorizonSubmission {
        let keyPair = try keystore.unlock(pin: pin)
        var builder = TransactionBuilder(source: keyPair.accountID, currentSequenceNumber: account.sequence)
        builder.memo = memo
        // The network's base fee unless the user chose one; the builder multiplies it by the
        // operations with overflow checked when it builds.
        if let fee {
            builder.baseFee = fee
        } else {
            builder.baseFee = UInt32(clamping: try await horizon.networkFees().baseFee)
        }
        for operation in operations { builder.add(operation) }
        builder.setTimeBounds(minTime: 0, maxTime: UInt64(Date().timeIntervalSince1970) + 300)
        let signingNetwork: Network
        if let network { signingNetwork = network } else { signingNetwork = Network(passphrase: try await horizon.networkPassphrase()) }
        return try await horizon.submit(try builder.build().signed(by: [keyPair], on: signingNetwork))
    }

    /// Pays `amount` of `asset` to a contact or address. Sending XLM to an account that does not
    /// exist creates it (at least 1 XLM); other assets need an existing account that trusts them.
    /// Everything is checked before the PIN is asked for and before anything is submitted.
    public func pay(to recipient: String, amount amountText: String, asset: Asset = .native, memo memoText: String? = nil, fee: Int64? = nil, pin: String) async throws -> HorizonSubmission {
        let memo = try Self.memo(memoText)
        return try await pay(to: recipient, amount: amountText, asset: asset, memo: memo, fee: fee, pin: pin)
    }

    /// Pays with any kind of memo (an id or a hash, as a SEP-7 URI may ask).
    public func pay(to recipient: String, amount amountText: String, asset: Asset = .native, memo: Memo, fee: Int64? = nil, pin: String) async throws -> HorizonSubmission {
        let destination = try resolveRecipient(recipient)
        let amount = try Self.parseAmount(amountText)
        let chosenFee = try Self.checkFee(fee)
        let account = try await account()
        let networkFees = try await horizon.networkFees()
        let maximum = Self.maximumSendable(account, asset: asset, fee: chosenFee.map(Int64.init) ?? networkFees.baseFee, baseReserve: networkFees.baseReserve)
        guard amount <= maximum else {
            throw WalletError(.insufficientBalance, "Insufficient balance (max: \(Amount.format(maximum)))")
        }
        let operation: OperationBody
        if let recipientAccount = try await horizon.account(destination.strKey) {
            if asset != .native, recipientAccount.balances.first(where: { $0.asset == asset }) == nil, asset.issuer != destination {
                throw WalletError(.recipientCannotReceive, "Recipient cannot receive \(asset.code?.text ?? "XLM")")
            }
            operation = .payment(PaymentOperation(destination: .ed25519(destination), asset: asset, amount: amount))
        } else {
            guard asset == .native else {
                throw WalletError(.recipientNotFound, "The recipient's account does not exist; only XLM can create it")
            }
            guard amount >= Amount.stroopsPerUnit else {
                throw WalletError(.createBelowMinimum, "The recipient's account does not exist; send at least 1 XLM to create it")
            }
            operation = .createAccount(CreateAccountOperation(destination: destination, startingBalance: amount))
        }
        return try await submit([operation], account: account, memo: memo, fee: chosenFee ?? UInt32(clamping: networkFees.baseFee), pin: pin)
    }

    /// Trusts `asset` with the largest limit. A custom issuer must exist.
    public func addTrust(_ asset: Asset, pin: String) async throws -> HorizonSubmission {
        guard let issuer = asset.issuer else { throw WalletError(.invalidAsset, "XLM needs no trustline") }
        guard try await horizon.account(issuer.strKey) != nil else { throw WalletError(.issuerNotFound, "Asset issuer not found") }
        let account = try await account()
        return try await submit([.changeTrust(ChangeTrustOperation(asset: asset))], account: account, fee: nil, pin: pin)
    }

    /// Removes the trustline to `asset`; only an empty one can go.
    public func removeTrust(_ asset: Asset, pin: String) async throws -> HorizonSubmission {
        let account = try await account()
        guard let line = account.balances.first(where: { $0.asset == asset }) else {
            throw WalletError(.trustlineMissing, "This account does not trust \(asset)")
        }
        guard (try? Amount.parse(line.balance)) == 0 else {
            throw WalletError(.trustlineNotEmpty, "The balance of \(asset.code?.text ?? "") must be zero before the trustline can be removed (it is \(line.balance))")
        }
        return try await submit([.changeTrust(ChangeTrustOperation(asset: asset, limit: 0))], account: account, fee: nil, pin: pin)
    }

    /// The most recent payments (5 by default), from the wallet's side. A create_account the
    /// wallet funded is sent; a path payment it sent shows the amount and asset it sent.
    public func recentPayments(limit: Int = 5) async throws -> [WalletPayment] {
        let me = try keystore.address()
        let names = try Self.names(contacts)
        let page = try await horizon.payments(for: me, limit: limit, descending: true)
        return page.records.compactMap { WalletPayment($0, me: me, names: names) }
    }

    /// Payments to and from the wallet as they happen, from the wallet's side, starting after
    /// `cursor` (`now` by default). Runs until the caller stops iterating.
    public func paymentUpdates(cursor: String = "now", reconnection: HorizonClient.Reconnection = .init()) throws -> AsyncThrowingStream<WalletPayment, any Error> {
        let me = try keystore.address()
        let contacts = self.contacts
        let records = horizon.paymentStream(for: me, cursor: cursor, reconnection: reconnection)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await record in records {
                        // Contacts are read per payment, so a name added while watching shows.
                        if let payment = WalletPayment(record, me: me, names: try Self.names(contacts)) {
                            continuation.yield(payment)
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private static func names(_ contacts: ContactBook) throws -> [String: String] {
        Dictionary((try contacts.all()).map { ($0.address, $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// Strict-send paths to `recipient` for exactly `amount` of `source`, best (most delivered) first.
    public func strictSendPaths(to recipient: String, source: Asset, amount amountText: String) async throws -> [HorizonPath] {
        let destination = try resolveRecipient(recipient)
        let amount = try Self.parseAmount(amountText)
        let paths = try await horizon.strictSendPaths(source: source, amount: amount, destinationAccount: destination.strKey)
        return paths.sorted { (try? Amount.parse($0.destinationAmount)) ?? 0 > (try? Amount.parse($1.destinationAmount)) ?? 0 }
    }

    /// Sends along `path` (from ``strictSendPaths(to:source:amount:)``), accepting down to
    /// `slippage` less than the quote (1% by default), so a moved order book fails cleanly with
    /// op_under_dest_min.
    public func pathPayStrictSend(to recipient: String, path: HorizonPath, slippage: Slippage = .standard, pin: String) async throws -> HorizonSubmission {
        let destination = try resolveRecipient(recipient)
        guard let source = path.sourceAsset, let target = path.destinationAsset,
              let sendAmount = try? Amount.parse(path.sourceAmount), let quoted = try? Amount.parse(path.destinationAmount) else {
            throw WalletError(.noPath, "The path is not usable")
        }
        let minimum = slippage.lowered(quoted)
        let account = try await account()
        return try await submit([.pathPaymentStrictSend(PathPaymentStrictSendOperation(
            sendAsset: source, sendAmount: sendAmount, destination: .ed25519(destination), destAsset: target, destMin: max(1, minimum), path: path.intermediateAssets))],
            account: account, fee: nil, pin: pin)
    }

    /// Strict-receive paths from the wallet's assets that deliver exactly `amount` of `asset`,
    /// cheapest first. The recipient must exist.
    public func strictReceivePaths(to recipient: String, asset: Asset, amount amountText: String) async throws -> [HorizonPath] {
        let destination = try resolveRecipient(recipient)
        let amount = try Self.parseAmount(amountText)
        guard try await horizon.account(destination.strKey) != nil else {
            throw WalletError(.recipientNotFound, "The recipient's account does not exist")
        }
        let paths = try await horizon.strictReceivePaths(sourceAccount: try keystore.address(), destination: asset, amount: amount)
        return paths.sorted { (try? Amount.parse($0.sourceAmount)) ?? 0 < (try? Amount.parse($1.sourceAmount)) ?? 0 }
    }

    /// Receives exactly the quoted amount along `path`, spending up to `slippage` more than the
    /// quote (1% by default); a moved book fails cleanly with op_over_source_max.
    public func pathPayStrictReceive(to recipient: String, path: HorizonPath, slippage: Slippage = .standard, pin: String) async throws -> HorizonSubmission {
        let destination = try resolveRecipient(recipient)
        guard let source = path.sourceAsset, let target = path.destinationAsset,
              let quoted = try? Amount.parse(path.sourceAmount), let receive = try? Amount.parse(path.destinationAmount) else {
            throw WalletError(.noPath, "The path is not usable")
        }
        let maximum = slippage.raised(quoted)
        let account = try await account()
        return try await submit([.pathPaymentStrictReceive(PathPaymentStrictReceiveOperation(
            sendAsset: source, sendMax: maximum, destination: .ed25519(destination), destAsset: target, destAmount: receive, path: path.intermediateAssets))],
            account: account, fee: nil, pin: pin)
    }
}

/// How far a path payment may stray from its quote, in basis points (1% is 100): a strict send
/// accepts that much less than quoted, a strict receive spends that much more.
public struct Slippage: Sendable, Equatable, CustomStringConvertible {
    public let basisPoints: Int64

    /// 1%, as the wallet uses unless told otherwise.
    public static let standard = Slippage(checked: 100)

    private init(checked basisPoints: Int64) { self.basisPoints = basisPoints }

    /// From 0 to 10,000 basis points (0% to 100%).
    public init(basisPoints: Int64) throws(WalletError) {
        guard (0...10_000).contains(basisPoints) else {
            throw WalletError(.invalidSlippage, "Slippage must be from 0% to 100%")
        }
        self.basisPoints = basisPoints
    }

    /// A percentage with at most two decimals: `1`, `0.5`, `2.25`.
    public init(percent text: String) throws(WalletError) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.count <= 3, whole.allSatisfy({ $0.isASCII && $0.isNumber }), let units = Int64(whole),
              parts.count == 1 || (1...2).contains(parts[1].count) && parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw WalletError(.invalidSlippage, "Slippage must be a percentage such as 1 or 0.5")
        }
        let fraction = parts.count == 2 ? Int64(parts[1].padding(toLength: 2, withPad: "0", startingAt: 0)) ?? 0 : 0
        try self.init(basisPoints: units * 100 + fraction)
    }

    public var description: String {
        basisPoints % 100 == 0 ? "\(basisPoints / 100)%" : String(format: "%d.%02d%%", basisPoints / 100, basisPoints % 100)
    }

    /// `amount` less the tolerance, rounded down, and never below one stroop.
    public func lowered(_ amount: Int64) -> Int64 {
        let (quotient, remainder) = amount.quotientAndRemainder(dividingBy: 10_000)
        return max(1, quotient * (10_000 - basisPoints) + remainder * (10_000 - basisPoints) / 10_000)
    }

    /// `amount` plus the tolerance, rounded up, and at most Int64.max.
    public func raised(_ amount: Int64) -> Int64 {
        let (quotient, remainder) = amount.quotientAndRemainder(dividingBy: 10_000)
        let (whole, overflow) = quotient.multipliedReportingOverflow(by: 10_000 + basisPoints)
        let part = (remainder * (10_000 + basisPoints) + 9_999) / 10_000
        guard !overflow else { return .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(part)
        return overflowAgain ? .max : total
    }
}
