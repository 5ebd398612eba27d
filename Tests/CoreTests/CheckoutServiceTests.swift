import Checkout
import CheckoutCore
import Foundation
import Gateway
import GatewayCore
import TenderTesting
import Testing

@Suite("The checkout's core, without HTTP")
struct CheckoutServiceTests {
    /// An order's life through the core alone: a marketplace, a seller and a buyer, a listing
    /// bought now, the order paid by card (held whole in escrow), shipped, received and
    /// released in three parts; each refusal typed.
    @Test func anOrdersLife() async throws {
        try await CoreWorld.with { world in
            let checkout = CheckoutService(gateway: world.gateway, keys: await CheckoutService.tokenKeys(ServerSecrets(master: Array(repeating: 9, count: 32))))
            let made = try await checkout.createMarketplace(name: "Core market", charges: .reference, orderExpirySeconds: 3_600, releaseAfterSeconds: 86_400)
            let market = CheckoutService.Market(merchant: made.merchant.record, marketplace: made.record)
            let address = NewAddress(name: "Bea", line1: "Damrak 1", postalCode: "1012 LG", city: "Amsterdam", country: "NL")
            let seller = try await checkout.authenticateUser(token: try await checkout.createUser(name: "Sam", business: false, addresses: [address], in: market).token)
            let buyer = try await checkout.authenticateUser(token: try await checkout.createUser(name: "Bea", business: false, addresses: [address], in: market).token)
            let listing = try await checkout.createListing(NewListing(title: "Lamp", price: 2_500, pickup: true, country: "NL"), by: seller)

            // Refusals in the core's terms.
            await #expect(throws: CheckoutFailure.self) { try await checkout.buyNow(listing.id, by: seller) }
            do {
                _ = try await checkout.createListing(NewListing(title: "", price: 1, pickup: true, country: "NL"), by: seller)
                Issue.record("an empty title was taken")
            } catch let failure as CheckoutFailure {
                #expect(failure.category == .invalid && failure.code == "parameter_invalid")
            }

            let bid = try await checkout.buyNow(listing.id, by: buyer)
            #expect(bid.machine.status == .accepted)
            let order = try await checkout.order(buyer, bid: bid.id, delivery: "pickup", address: nil, payment: "card", base: CoreWorld.base)
            #expect(order.totals.total == 2_500 + 73, "card: 2.9% of 25.00 is 0.725, half up 0.73")
            // The seller cannot see the buyer's payment screen, nor pay.
            do {
                _ = try await checkout.pay(seller, orderID: order.id, method: nil, card: nil, returnURL: "https://shop.example/", base: CoreWorld.base)
                Issue.record("the seller paid")
            } catch let failure as CheckoutFailure {
                #expect(failure.category == .forbidden)
            }
            let card = try await world.gateway.createPaymentMethod(
                NewPaymentMethod(type: .card, card: CardDetails(number: "4242424242424242", expMonth: "12", expYear: "2040", cvc: "123")), merchant: market.merchant)
            _ = try await world.gateway.attachPaymentMethod(card.id, customer: CustomerID(buyer.user.customer), merchant: market.merchant)
            let paid = try await checkout.pay(buyer, orderID: order.id, method: nil, card: card.id.rawValue, returnURL: "https://shop.example/", base: CoreWorld.base)
            #expect(paid.order.machine.status == .paid && paid.redirect == nil && paid.declined == nil)
            #expect(paid.order.held == 2_573 && paid.order.holdTransaction != nil && paid.order.gatewayFee == 25 + 39)
            #expect(try await world.euros(of: made.record.escrowAccount) == 2_573)

            #expect(try await checkout.ship(seller, orderID: order.id).machine.status == .shipped)
            let done = try await checkout.confirmReceipt(buyer, orderID: order.id)
            #expect(done.machine.status == .completed && done.releaseTransaction != nil)
            // The seller 25.00 less 10%, the marketplace 0.73 + 2.50 less the gateway's 0.64.
            #expect(try await world.euros(of: seller.user.account!) == 2_250)
            #expect(try await world.euros(of: made.record.escrowAccount) == 0)
            #expect(try await world.euros(of: made.merchant.record.settlementAccount) == 73 + 250 - 64)
            await #expect(throws: CheckoutFailure.self, "completed once") { try await checkout.cancel(buyer, orderID: order.id, base: CoreWorld.base) }
            // The marketplace's share is explained by a transfer among its balance transactions.
            let transfers = try await world.gateway.balanceTransactions(merchant: market.merchant, page: ListRequest(), type: .transfer, source: nil).records
            #expect(transfers.map(\.net) == [73 + 250 - 64] && transfers[0].source == order.id.rawValue)

            // A second order paid, then cancelled: back from escrow into the balance, refunded from it.
            let vase = try await checkout.createListing(NewListing(title: "Vase", price: 1_000, pickup: true, country: "NL"), by: seller)
            let second = try await checkout.order(buyer, bid: try await checkout.buyNow(vase.id, by: buyer).id, delivery: "pickup", address: nil, payment: "card", base: CoreWorld.base)
            _ = try await checkout.pay(buyer, orderID: second.id, method: nil, card: card.id.rawValue, returnURL: "https://shop.example/", base: CoreWorld.base)
            let cancelled = try await checkout.cancel(buyer, orderID: second.id, base: CoreWorld.base)
            #expect(cancelled.machine.status == .cancelled)
            let all = try await world.balanceTransactions(of: market.merchant)
            #expect(all.map(\.type) == [.refund, .adjustment, .transfer] && all[0].amount == -second.totals.total && all[1].amount == second.totals.total)
            #expect(all.map(\.net).reduce(0, +) == (try await world.euros(of: made.merchant.record.settlementAccount)), "the balance transactions sum to the ledger's balance")
        }
    }
}
