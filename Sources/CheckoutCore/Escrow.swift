import Checkout
import Foundation
import Gateway
import GatewayCore
import Identifiers

/// What a marketplace's escrow holds, told two ways: the sum of what its orders hold (paid or
/// shipped, not yet released or refunded), and the escrow account's balance on the ledger. The
/// two are equal (the console shows them side by side; the tests check it).
package struct EscrowStatement: Sendable, Equatable {
    package let heldByOrders: Int64
    package let onLedger: Int64
    /// Orders by status, over all of the marketplace's orders.
    package let counts: [OrderMachine.Status: Int]
}

extension CheckoutService {
    /// The marketplace of a merchant, or nil for a merchant that is not one.
    package func marketplaceIfAny(_ merchant: MerchantRecord) async throws -> MarketplaceRecord? {
        guard let stored = try await gateway.store.object(id: merchant.id, kind: .marketplace, merchant: merchant.id) else { return nil }
        return try gateway.records.decode(MarketplaceRecord.self, stored)
    }

    /// A page of the marketplace's orders, newest first, of one status or all.
    package func orders(_ merchant: MerchantRecord, status: OrderMachine.Status?, startingAfter: OrderID?, limit: Int) async throws(GatewayFailure) -> (records: [OrderRecord], hasMore: Bool) {
        let page = ListRequest(limit: limit, startingAfter: startingAfter?.rawValue)
        guard let status else { return try await gateway.list(OrderRecord.self, merchant: merchant, page) }
        return try await gateway.list(OrderRecord.self, merchant: merchant, page) { $0.machine.status == status }
    }

    /// The escrow's statement: every order read (newest first, 100 at a time) and the escrow
    /// account's euros on the ledger.
    package func escrowStatement(_ merchant: MerchantRecord, _ marketplace: MarketplaceRecord) async throws -> EscrowStatement {
        var held: Int64 = 0
        var counts: [OrderMachine.Status: Int] = [:]
        var after: OrderID?
        while true {
            let (orders, hasMore) = try await orders(merchant, status: nil, startingAfter: after, limit: 100)
            for order in orders {
                held += order.held
                counts[order.machine.status, default: 0] += 1
            }
            guard hasMore, let last = orders.last else { break }
            after = last.id
        }
        let onLedger = try await gateway.balances(ofAccount: marketplace.escrowAccount).first { $0.0 == Self.euro }?.1 ?? 0
        return EscrowStatement(heldByOrders: held, onLedger: onLedger, counts: counts)
    }

    /// One of the marketplace's orders, with its buyer, seller and listing.
    package func orderStory(_ id: OrderID, merchant: MerchantRecord) async throws -> (order: OrderRecord, listing: ListingRecord?, buyer: CheckoutUserRecord?, seller: CheckoutUserRecord?)? {
        guard let order = try await gateway.find(OrderRecord.self, id: id, merchant: merchant) else { return nil }
        let listing = try await gateway.find(ListingRecord.self, id: order.listing, merchant: merchant)
        let buyer = try await gateway.find(CheckoutUserRecord.self, id: order.buyer, merchant: merchant)
        let seller = try await gateway.find(CheckoutUserRecord.self, id: order.seller, merchant: merchant)
        return (order, listing, buyer, seller)
    }

    /// The caller's orders as a buyer, newest first (orders are filed under their buyer).
    package func orders(of caller: Caller) async throws -> [OrderRecord] {
        try await gateway.list(OrderRecord.self, merchant: caller.merchant, ListRequest(limit: 100, customer: caller.user.id.rawValue)).records
    }
}
