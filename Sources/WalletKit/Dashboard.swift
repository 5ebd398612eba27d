import Foundation

/// The dashboard's data (account, balances, recent payments) with the reference app's caching
/// rules: balances are kept 30 s, recent payments 20 s, an account's absence 60 s; the network
/// is asked at most once every 2 s however often the screen refreshes; a forced refresh (pull to
/// refresh, or after the wallet itself paid) asks again at once.
public actor Dashboard {
    /// How long each part stays fresh.
    public struct Policy: Sendable {
        public var balances: Duration
        public var payments: Duration
        public var accountExistence: Duration
        public var minimumInterval: Duration

        /// The reference app's: 30 s, 20 s, 60 s, at most one refresh per 2 s.
        public static let reference = Policy(balances: .seconds(30), payments: .seconds(20), accountExistence: .seconds(60), minimumInterval: .seconds(2))

        public init(balances: Duration, payments: Duration, accountExistence: Duration, minimumInterval: Duration) {
            self.balances = balances
            self.payments = payments
            self.accountExistence = accountExistence
            self.minimumInterval = minimumInterval
        }
    }

    /// What the dashboard shows.
    public struct Snapshot: Sendable {
        public let address: String
        /// Nil when the account does not exist yet ("account not found": fund it).
        public let account: HorizonAccount?
        public let recentPayments: [WalletPayment]

        public var accountExists: Bool { account != nil }
        public var balances: [HorizonBalance] { account?.balances ?? [] }
    }

    public let wallet: Wallet
    public let policy: Policy
    public let paymentLimit: Int
    private let now: @Sendable () -> ContinuousClock.Instant

    private var account: HorizonAccount?
    private var accountFetched: ContinuousClock.Instant?
    private var payments: [WalletPayment] = []
    private var paymentsFetched: ContinuousClock.Instant?
    private var lastNetworkRefresh: ContinuousClock.Instant?

    /// - Parameter now: the clock (tests move it by hand).
    public init(wallet: Wallet, policy: Policy = .reference, paymentLimit: Int = 5, now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.wallet = wallet
        self.policy = policy
        self.paymentLimit = paymentLimit
        self.now = now
    }

    /// The dashboard's data, from the cache where it is fresh. With `force` everything is
    /// fetched again, whatever its age.
    public func load(force: Bool = false) async throws -> Snapshot {
        let address = try wallet.keystore.address()
        let time = now()
        func expired(_ fetched: ContinuousClock.Instant?, _ lifetime: Duration) -> Bool {
            guard let fetched else { return true }
            return time - fetched >= lifetime
        }
        let throttled = !force && lastNetworkRefresh.map { time - $0 < policy.minimumInterval } ?? false
        if !throttled {
            var asked = false
            let accountLifetime = account == nil ? policy.accountExistence : policy.balances
            if force || expired(accountFetched, accountLifetime) {
                account = try await wallet.horizon.account(address)
                accountFetched = time
                asked = true
            }
            if account == nil {
                payments = []
                paymentsFetched = nil
            } else if force || expired(paymentsFetched, policy.payments) {
                payments = try await wallet.recentPayments(limit: paymentLimit)
                paymentsFetched = time
                asked = true
            }
            if asked { lastNetworkRefresh = time }
        }
        return Snapshot(address: address, account: account, recentPayments: payments)
    }

    /// Marks everything stale, as after the wallet submitted a transaction: the next load asks
    /// the network (once the 2 s since the last refresh have passed).
    public func invalidate() {
        accountFetched = nil
        paymentsFetched = nil
    }

    /// Funds the account through friendbot and forgets that it did not exist.
    public func fund() async throws -> HorizonSubmission {
        let submission = try await wallet.horizon.friendbot(try wallet.keystore.address())
        invalidate()
        return submission
    }
}
