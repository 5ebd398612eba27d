import Foundation
import Gateway

/// What the console asks of a merchant's payments: a filter of the list and the figures of its
/// home page.
package struct PaymentFilter: Sendable, Equatable {
    package var status: PaymentIntentStatus?
    package var currency: String?
    package var method: PaymentMethodType?
    /// Minor units, inclusive.
    package var minimumAmount: Int64?
    package var maximumAmount: Int64?
    /// Unix seconds, inclusive; `createdBefore` exclusive.
    package var createdFrom: Int64?
    package var createdBefore: Int64?
    package var customer: CustomerID?

    package init() {}

    package func admits(_ intent: PaymentIntentRecord) -> Bool {
        if let status, intent.machine.status != status { return false }
        if let currency, intent.currency != currency { return false }
        if let method, intent.machine.paymentMethodType != method { return false }
        if let minimumAmount, intent.machine.amount < minimumAmount { return false }
        if let maximumAmount, intent.machine.amount > maximumAmount { return false }
        if let createdFrom, intent.created < createdFrom { return false }
        if let createdBefore, intent.created >= createdBefore { return false }
        if let customer, intent.customer != customer { return false }
        return true
    }
}

/// A page of a filtered list: what matched, and where the next page starts reading (nil at the
/// end). A page reads at most ``GatewayService/consoleScanLimit`` payments, so a rare match in a
/// long history takes several pages instead of one long request.
package struct PaymentsPage: Sendable {
    package let intents: [PaymentIntentRecord]
    package let next: PaymentIntentID?
    package let scanned: Int

    package init(intents: [PaymentIntentRecord], next: PaymentIntentID?, scanned: Int) {
        self.intents = intents
        self.next = next
        self.scanned = scanned
    }
}

/// A merchant's figures over the last days, day by day (UTC).
package struct PaymentActivity: Sendable, Equatable {
    package struct Period: Sendable, Equatable {
        /// Unix seconds when it begins (00:00 UTC for a day).
        package let start: Int64
        package var succeeded = 0
        package var failed = 0
        /// Received, per currency, in minor units.
        package var volume: [String: Int64] = [:]
        package var refunded: [String: Int64] = [:]
    }

    package var days: [Period]
    /// The last 24 hours, hour by hour (the same counts, by the hour).
    package var hours: [Period] = []
    /// Whether every payment of the window was read (false when the window holds more than the
    /// scan limit; the figures then cover the newest ones).
    package var complete: Bool

    package var succeeded: Int { days.reduce(0) { $0 + $1.succeeded } }
    package var failed: Int { days.reduce(0) { $0 + $1.failed } }
    /// Succeeded among the payments that reached an outcome, in per mille; nil when none did.
    package var successPerMille: Int? {
        let decided = succeeded + failed
        return decided == 0 ? nil : succeeded * 1000 / decided
    }
    package func total(_ keyPath: KeyPath<Period, [String: Int64]>) -> [String: Int64] {
        days.reduce(into: [:]) { sum, day in
            for (currency, amount) in day[keyPath: keyPath] { sum[currency, default: 0] += amount }
        }
    }

    /// Days of `days` ending with the one holding `now`, and the 24 hours ending with the one
    /// holding `now`, filled from `intents` (newest first).
    package static func of(_ intents: [PaymentIntentRecord], days count: Int, now: Int64, complete: Bool) -> PaymentActivity {
        let today = now - ((now % 86_400) + 86_400) % 86_400
        var activity = PaymentActivity(days: periods(intents, count: count, length: 86_400, last: today), complete: complete)
        activity.hours = periods(intents, count: 24, length: 3_600, last: now - ((now % 3_600) + 3_600) % 3_600)
        return activity
    }

    /// `count` periods of `length` seconds, the last starting at `last`.
    static func periods(_ intents: [PaymentIntentRecord], count: Int, length: Int64, last: Int64) -> [Period] {
        let first = last - Int64(count - 1) * length
        var periods = (0..<count).map { Period(start: first + Int64($0) * length) }
        for intent in intents where intent.created >= first && intent.created < last + length {
            let index = Int((intent.created - first) / length)
            if intent.machine.amountReceived > 0 {
                periods[index].succeeded += 1
                periods[index].volume[intent.currency, default: 0] += intent.machine.amountReceived
            } else if intent.charges?.contains(where: { $0.status == .failed }) == true || intent.machine.status == .canceled && intent.charges != nil {
                periods[index].failed += 1
            }
            if intent.machine.amountRefunded > 0 { periods[index].refunded[intent.currency, default: 0] += intent.machine.amountRefunded }
        }
        return periods
    }
}

extension GatewayService {
    /// The most payments one page of the console's list, or its home page, reads.
    package static let consoleScanLimit = 2_000

    /// A page of the merchant's payments that the filter admits, newest first, read from
    /// `startingAfter` on.
    package func payments(merchant: MerchantRecord, filter: PaymentFilter, startingAfter: PaymentIntentID?, limit: Int) async throws(GatewayFailure) -> PaymentsPage {
        try await failing { () async throws -> PaymentsPage in
            var found: [PaymentIntentRecord] = []
            var request = ListRequest(limit: 100, startingAfter: startingAfter?.rawValue)
            var scanned = 0
            while true {
                let (objects, hasMore) = try await store.list(kind: .paymentIntent, merchant: merchant.id, request)
                for object in objects {
                    let intent = try records.decode(PaymentIntentRecord.self, object)
                    scanned += 1
                    // Newest first: once older than the window, nothing further can match.
                    if let from = filter.createdFrom, intent.created < from { return PaymentsPage(intents: found, next: nil, scanned: scanned) }
                    if filter.admits(intent) { found.append(intent) }
                    if found.count == limit || scanned >= Self.consoleScanLimit {
                        let more = hasMore || object.id != objects.last?.id
                        return PaymentsPage(intents: found, next: more ? intent.id : nil, scanned: scanned)
                    }
                }
                guard hasMore, let last = objects.last else { return PaymentsPage(intents: found, next: nil, scanned: scanned) }
                request.startingAfter = last.id
            }
        }
    }

    /// The merchant's payments of the last `days` days (UTC), day by day.
    package func activity(merchant: MerchantRecord, days: Int) async throws(GatewayFailure) -> PaymentActivity {
        let now = now()
        var filter = PaymentFilter()
        filter.createdFrom = now - ((now % 86_400) + 86_400) % 86_400 - Int64(days - 1) * 86_400
        var intents: [PaymentIntentRecord] = []
        var cursor: PaymentIntentID?
        var complete = true
        repeat {
            let page = try await payments(merchant: merchant, filter: filter, startingAfter: cursor, limit: 100)
            intents += page.intents
            cursor = page.next
            if intents.count >= Self.consoleScanLimit * 2 { complete = cursor == nil; break }
        } while cursor != nil
        return PaymentActivity.of(intents, days: days, now: now, complete: complete)
    }

    /// The balance transactions of one source (a charge, a refund, a payout), newest first.
    package func balanceTransactions(source: String, merchant: MerchantRecord) async throws(GatewayFailure) -> [BalanceTransactionRecord] {
        try await balanceTransactions(merchant: merchant, page: ListRequest(limit: 100), type: nil, source: source).records
    }
}
