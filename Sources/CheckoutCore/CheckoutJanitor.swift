import Checkout
import Foundation
import Gateway
import GatewayCore
import GatewayCore
import Ledger
import Logging
import ServiceLifecycle

/// The checkout's background work, a service of its own: unpaid orders past the marketplace's
/// expiry are ended (their intents canceled first, after asking the gateway whether they were
/// paid meanwhile; an abandoned buy-now's bid withdrawn so others can buy), and shipped orders
/// the buyer never confirmed are released when the marketplace's time passes.
package struct CheckoutJanitor: Service {
    let service: CheckoutService
    let reader: any LedgerReader
    let refunder: CheckoutService.Refunder
    let base: String
    let clock: any Clock<Duration>
    let interval: Duration
    let logger: Logger

    package init(service: CheckoutService, reader: any LedgerReader, refunder: @escaping CheckoutService.Refunder, base: String, clock: any Clock<Duration>, interval: Duration, logger: Logger) {
        self.service = service
        self.reader = reader
        self.refunder = refunder
        self.base = base
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        try await sweepEvery(interval, on: clock) { await sweep() }
    }

    func sweep() async {
        do {
            for stored in try await service.gateway.store.dueObjects(kind: .checkoutOrder, now: service.gateway.now(), limit: 100) {
                await attend(stored)
            }
        } catch is CancellationError {
            // Shutting down.
        } catch {
            logger.error("checkout janitor could not read due orders", metadata: ["error": "\(error)"])
        }
    }

    func attend(_ stored: StoredObject) async {
        do {
            guard let merchant = try await service.gateway.store.merchant(id: stored.merchant) else { return }
            let market = CheckoutService.Market(merchant: merchant, marketplace: try await service.marketplace(merchant))
            let order = try service.gateway.records.decode(OrderRecord.self, stored)
            switch order.machine.status {
            case .awaitingPayment, .paymentPending:
                let ended = try await service.endUnpaid(order, stored, market, expire: true, base: base)
                logger.info("checkout order expired", metadata: ["order.id": "\(ended.id)"])
            case .shipped:
                let released = try await service.complete(order, stored, market, by: .marketplace)
                logger.info("checkout order released after its time", metadata: ["order.id": "\(released.id)"])
            case .paid, .completed:
                // Marked a day ago, its ledger move never recorded: the request died.
                try await service.finishMove(order, stored, market, reader: reader, beforeServing: false)
            case .cancelled where order.refund != nil:
                // A paid order's cancellation that stopped midway.
                _ = try await service.finishRefund(order, stored, market, refunder: refunder, reader: reader)
                logger.info("checkout refund finished", metadata: ["order.id": "\(order.id)"])
            case .cancelled, .expired:
                _ = try await service.save(order, over: stored, attentionAt: .some(nil))
            }
        } catch {
            // Paid meanwhile, or another request moved it first: looked at again next pass if
            // still due.
            logger.debug("checkout janitor left an order for the next pass", metadata: ["order.id": "\(stored.id)", "error": "\(error)"])
        }
    }
}
