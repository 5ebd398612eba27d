import Checkout
import CheckoutCore
import Foundation
import Gateway
import GatewayCore
import Hummingbird

/// The console's marketplace pages (for a merchant that is a marketplace): its orders by status,
/// what its escrow holds beside its escrow account on the ledger, and one order's story.
extension ConsoleRoutes {
    func marketplacePage(_ scope: Scope, _ request: Request) async throws -> Response {
        let t = scope.text
        guard let merchant = scope.merchant, let marketplace = try await checkout.marketplaceIfAny(merchant) else { return notFound(scope) }
        let statusText = Self.queryValue(request, "status")
        let status = OrderMachine.Status(rawValue: statusText)
        if !statusText.isEmpty, status == nil { return notFound(scope) }
        let after = Self.queryValue(request, "after")
        let statement = try await checkout.escrowStatement(merchant, marketplace)
        let page = try await checkout.orders(merchant, status: status, startingAfter: after.isEmpty ? nil : OrderID(after), limit: 25)
        let rows = page.records.map { order -> [Cell] in
            [
                Cell(text: order.id.rawValue, href: Self.link("/console/marketplace/orders/\(order.id)", scope), code: true),
                Cell(text: Self.orderStatus(order.machine.status), tone: Self.orderTone(order.machine.status)),
                Cell(text: t.money(order.totals.total, "eur"), num: true), Cell(text: t.money(order.held, "eur"), num: true),
                Cell(text: Self.time(order.created)),
            ]
        }
        let statusLinks = [(t("All"), Self.link("/console/marketplace", scope))] + OrderMachine.Status.allCases.map {
            ("\(Self.orderStatus($0)) (\(statement.counts[$0] ?? 0))", Self.link("/console/marketplace", scope, [("status", $0.rawValue)]))
        }
        let filter = ConsoleTemplates.links.render(["label": t("Orders by status"), "links": statusLinks.map { ["text": $0.0, "href": $0.1] }])
        let next = page.hasMore ? page.records.last.map { Self.link("/console/marketplace", scope, [("after", $0.id.rawValue)] + (status == nil ? [] : [("status", statusText)])) } : nil
        let agrees = statement.heldByOrders == statement.onLedger
        return sectionsPage(scope, title: "Marketplace", heading: marketplace.name, current: "marketplace", sections: [
            Section(title: t("Escrow"), text: agrees ? t("What the orders hold equals the escrow account on the ledger.") : t("What the orders hold differs from the escrow account on the ledger."),
                    html: Self.facts([
                        (t("Held by paid and shipped orders"), t.money(statement.heldByOrders, "eur"), false),
                        (t("Escrow account on the ledger"), t.money(statement.onLedger, "eur"), false),
                        (t("Escrow account"), marketplace.escrowAccount, true),
                    ]) + ConsoleTemplates.link.render(["href": "/console/explorer/accounts/\(marketplace.escrowAccount)", "text": t("The escrow account in the explorer")])),
            Section(title: status.map { t("Orders") + ": " + Self.orderStatus($0) } ?? t("Orders"), html: filter + Self.table(
                [Column(title: t("Order")), Column(title: t("Status")), Column(title: t("Total"), num: true), Column(title: t("In escrow"), num: true), Column(title: t("Created"))],
                rows, empty: t("No orders.")), pager: next ?? nil),
        ], error: agrees ? nil : t("Escrow and ledger differ by {amount}.", ["amount": t.money(statement.onLedger - statement.heldByOrders, "eur")]))
    }

    func orderPage(_ scope: Scope, id: String) async throws -> Response {
        let t = scope.text
        guard let merchant = scope.merchant, try await checkout.marketplaceIfAny(merchant) != nil,
              let (order, listing, buyer, seller) = try await checkout.orderStory(OrderID(id), merchant: merchant) else { return notFound(scope) }
        var facts: [(String, String, Bool)] = [
            (t("Order"), order.id.rawValue, true), (t("Status"), Self.orderStatus(order.machine.status), false),
            (t("Listing"), listing?.title ?? order.listing.rawValue, false), (t("Buyer"), buyer?.name ?? order.buyer.rawValue, false),
            (t("Seller"), seller?.name ?? order.seller.rawValue, false), (t("Total"), t.money(order.totals.total, "eur"), false),
            (t("In escrow"), t.money(order.held, "eur"), false),
        ]
        if let fee = order.gatewayFee { facts.append((t("Gateway's fee"), t.money(fee, "eur"), false)) }
        let lines = order.totals.lines.map { [Cell(text: $0.kind.rawValue.replacingOccurrences(of: "_", with: " ")), Cell(text: t.money($0.amount, "eur"), num: true)] }
        var story: [[Cell]] = [[Cell(text: t("Bid accepted, order made")), Cell(text: Self.time(order.created)), Cell(text: order.bid.rawValue, code: true)]]
        if let intent = order.paymentIntent {
            story.append([Cell(text: t("Payment")), Cell(text: order.paidAt.map(Self.time) ?? "–"), Cell(text: intent, href: Self.link("/console/payments/\(intent)", scope), code: true)])
        }
        for (what, hash) in [(t("Held in escrow"), order.holdTransaction), (t("Released to seller and marketplace"), order.releaseTransaction), (t("Returned from escrow"), order.returnTransaction)] {
            if let hash { story.append([Cell(text: what), Cell(text: "–"), Cell(text: String(hash.prefix(16)) + "…", href: "/console/explorer/transactions/\(hash)", code: true)]) }
        }
        if let shipped = order.shippedAt { story.append([Cell(text: t("Shipped")), Cell(text: Self.time(shipped)), Cell(text: "–")]) }
        if let refund = order.refund { story.append([Cell(text: t("Refunded")), Cell(text: "–"), Cell(text: refund, code: true)]) }
        return sectionsPage(scope, title: t("Order") + " " + order.id.rawValue, heading: t("Order") + " " + order.id.rawValue, current: "marketplace", sections: [
            Section(title: t("Order"), html: Self.facts(facts)),
            Section(title: t("Totals"), html: Self.table([Column(title: t("Line")), Column(title: t("Amount"), num: true)], lines, empty: t("No lines."))),
            Section(title: t("Its story"), html: Self.table([Column(title: t("What")), Column(title: t("When")), Column(title: t("Where"))], story, empty: t("Nothing yet."))),
        ], back: (Self.link("/console/marketplace", scope), t("Marketplace")))
    }

    static func orderStatus(_ status: OrderMachine.Status) -> String { status.rawValue.replacingOccurrences(of: "_", with: " ") }

    static func orderTone(_ status: OrderMachine.Status) -> String {
        switch status {
        case .completed: "good"
        case .cancelled, .expired: "bad"
        case .paid, .shipped, .paymentPending: "warn"
        case .awaitingPayment: ""
        }
    }
}
