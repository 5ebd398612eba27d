import Foundation

/// The reference marketplace's payment screen without a screen: it loads the user, the listing
/// and the pending order at once before the screen is enabled; refreshes the totals when an
/// option changes (one request in flight, the latest choice wins); pays; after the redirect
/// back, polls the order and, while it is still pending, retries (three more times by default,
/// waiting with the injected sleep) before reporting the payment as failing; treats a return
/// without a result as abandoned (back on the screen, the order still payable); and withdraws a
/// buy-now bid when the buyer backs out.
public actor CheckoutScreenModel {
    public enum Phase: Equatable, Sendable {
        case loading
        /// Loaded: the buyer may choose and pay.
        case ready
        case paying
        /// Send the buyer to this page (3-D Secure or the bank) and call ``returned(result:)``.
        case redirect(URL)
        case polling
        case paid
        /// The payment did not go through (or the card was refused): the order is payable.
        case failed(String)
        /// Still pending after every retry.
        case failing
        /// The buyer backed out of a buy-now: the bid is withdrawn.
        case backedOut
        case error(CheckoutClientError)
    }

    public let client: CheckoutClient
    public let bidID: String
    /// Retries after the first poll while the order is still pending, and the wait before each.
    public let retries: Int
    public let retryDelay: Duration
    private let sleep: @Sendable (Duration) async throws -> Void

    public private(set) var phase: Phase = .loading
    public private(set) var user: CheckoutUser?
    public private(set) var listing: CheckoutListing?
    public private(set) var bid: CheckoutBid?
    public private(set) var order: CheckoutOrder?
    public private(set) var choices: CheckoutChoices
    public private(set) var totals: CheckoutTotals?
    /// The last totals request's error (a country not served...), cleared by the next success.
    public private(set) var totalsError: CheckoutClientError?
    /// How many totals requests were sent (one at a time).
    public private(set) var totalsRequests = 0
    /// How many times the order was asked for after a redirect.
    public private(set) var polls = 0
    private var refreshing = false

    public init(client: CheckoutClient, bidID: String, choices: CheckoutChoices = CheckoutChoices(), retries: Int = 3, retryDelay: Duration = .seconds(1),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.client = client
        self.bidID = bidID
        self.choices = choices
        self.retries = retries
        self.retryDelay = retryDelay
        self.sleep = sleep
    }

    /// Everything the screen shows, at once (what a view binds to).
    public struct State: Sendable, Equatable {
        public let phase: Phase
        public let enabled: Bool
        public let user: CheckoutUser?
        public let listing: CheckoutListing?
        public let bid: CheckoutBid?
        public let order: CheckoutOrder?
        public let choices: CheckoutChoices
        public let totals: CheckoutTotals?
        public let polls: Int
    }

    public var state: State {
        State(phase: phase, enabled: enabled, user: user, listing: listing, bid: bid, order: order, choices: choices, totals: totals, polls: polls)
    }

    /// Whether the buyer can act: loaded, and not in the middle of paying.
    public var enabled: Bool {
        switch phase {
        case .ready, .failed: true
        default: false
        }
    }

    /// The user, the bid; then the listing and the pending order together; then the totals.
    public func load() async {
        do {
            let client = client
            async let userCall = client.me()
            async let bidCall = client.bid(bidID)
            let (loadedUser, loadedBid) = try await (userCall, bidCall)
            async let listingCall = client.listing(loadedBid.listing)
            async let orderCall = Self.pendingOrder(loadedBid, client)
            (self.listing, self.order) = try await (listingCall, orderCall)
            self.user = loadedUser
            self.bid = loadedBid
            if choices.address == nil { choices.address = loadedUser.addresses.first?.id }
            if choices.delivery == nil, let listing = self.listing { choices.delivery = listing.pickup ? "pickup" : listing.delivery.first?.name }
            if order?.status == "paid" || order?.status == "shipped" || order?.status == "completed" {
                phase = .paid
                return
            }
            phase = .ready
            await refreshTotals()
        } catch let error as CheckoutClientError {
            phase = .error(error)
        } catch {
            phase = .error(.transport("\(error)"))
        }
    }

    static func pendingOrder(_ bid: CheckoutBid, _ client: CheckoutClient) async throws -> CheckoutOrder? {
        guard let id = bid.order else { return nil }
        return try await client.order(id)
    }

    public func chooseDelivery(_ delivery: String) async { await change { $0.delivery = delivery } }
    public func chooseAddress(_ address: String) async { await change { $0.address = address } }
    public func choosePaymentMethod(_ method: String) async { await change { $0.paymentMethod = method } }

    private func change(_ edit: (inout CheckoutChoices) -> Void) async {
        edit(&choices)
        await refreshTotals()
    }

    /// Sends the totals request for the current choices unless one is in flight; when one comes
    /// back for choices that have changed since, it is sent again for the latest.
    private func refreshTotals() async {
        guard !refreshing else { return }
        refreshing = true
        defer { refreshing = false }
        while true {
            let asked = choices
            totalsRequests += 1
            do {
                let answer = try await client.totals(bidID, asked)
                if asked == choices {
                    totals = answer
                    totalsError = nil
                    return
                }
            } catch {
                if asked == choices {
                    totals = nil
                    totalsError = error
                    return
                }
            }
        }
    }

    /// Pays with the current choices (a saved card for card): the order made or updated, then
    /// the payment; the phase says what follows.
    public func pay(card: String? = nil, returnURL: URL) async {
        guard enabled else { return }
        phase = .paying
        do {
            let made = try await client.createOrder(bidID, choices)
            order = made
            let payment = try await client.pay(made.id, paymentMethod: choices.paymentMethod, card: card, returnURL: returnURL)
            order = payment.order
            if let redirect = payment.redirect {
                phase = .redirect(redirect)
            } else if payment.order.status == "paid" {
                phase = .paid
            } else {
                phase = .failed(payment.error ?? "The payment did not go through.")
            }
        } catch {
            phase = .error(error)
        }
    }

    /// The buyer is back from the page. Without a result the payment was abandoned: back on the
    /// screen, the order still payable. With one, the order is polled until it is paid or no
    /// longer pending, retrying while it is.
    public func returned(result: String?) async {
        guard case .redirect = phase, let orderID = order?.id else { return }
        guard result != nil else {
            order = try? await client.order(orderID)
            phase = .ready
            return
        }
        phase = .polling
        for attempt in 0...retries {
            if attempt > 0 { try? await sleep(retryDelay) }
            polls += 1
            do {
                let current = try await client.order(orderID)
                order = current
                switch current.status {
                case "paid", "shipped", "completed":
                    phase = .paid
                    return
                case "payment_pending":
                    continue
                default:
                    phase = .failed("The payment did not go through.")
                    return
                }
            } catch {
                phase = .error(error)
                return
            }
        }
        phase = .failing
    }

    /// The buyer backs out of a buy-now: the bid is withdrawn (and its unpaid order ended) so
    /// that others can buy.
    public func backOut() async {
        guard bid?.buy_now == true else { return }
        do {
            bid = try await client.withdraw(bidID)
            phase = .backedOut
        } catch {
            phase = .error(error)
        }
    }
}
