import Foundation
import Gateway
import Ledger
import Logging
import ServiceLifecycle

/// The gateway's background work on intents, a service of its own: it asks the acquirer again
/// about payments whose answer was lost (the reconciler: with back-off, settling each exactly
/// once through the state machine), cancels intents whose customer never came back from a
/// redirect (`abandoned`), and releases authorisations never captured (`automatic`). It looks
/// at what is due every `interval`.
package struct GatewayJanitor: Service {
    package let service: GatewayService
    /// The committed ledgers, where a settlement left pending is looked for.
    package let reader: any LedgerReader
    /// The server's URL, for the test-page links in the events it emits.
    package let base: String
    package let clock: any Clock<Duration>
    package let interval: Duration
    package let logger: Logger

    package init(service: GatewayService, reader: any LedgerReader, base: String, clock: any Clock<Duration>, interval: Duration, logger: Logger) {
        self.service = service
        self.reader = reader
        self.base = base
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        try await sweepEvery(interval, on: clock) { await sweep() }
    }

    /// One pass over everything due now.
    package func sweep() async {
        do {
            for stored in try await service.store.dueObjects(kind: .paymentIntent, now: service.now(), limit: 100) {
                await attend(stored)
            }
        } catch is CancellationError {
            // Shutting down.
        } catch {
            logger.error("gateway janitor could not read due intents", metadata: ["error": "\(error)"])
        }
    }

    package func attend(_ stored: StoredObject) async {
        do {
            guard let merchant = try await service.store.merchant(id: stored.merchant) else { return }
            var intent = try service.records.decode(PaymentIntentRecord.self, stored)
            let action: PaymentIntentStateMachine.Action
            switch intent.machine.status {
            case .processing:
                let attempt = intent.reconcileAttempts + 1
                var outcome = AcquirerOutcome.noAnswer
                if let methodID = intent.machine.paymentMethod,
                   let methodObject = try await service.store.object(id: methodID, kind: .paymentMethod, merchant: merchant.id),
                   let card = try service.records.decode(PaymentMethodRecord.self, methodObject).card {
                    outcome = TestAcquirer.inquiry(card.outcome, attempt: attempt)
                }
                action = try intent.machine.acquirerAnswered(outcome)
                intent.reconcileAttempts = attempt
                // Asked again after 2, 4, 8... seconds, at most 5 minutes apart.
                intent.reconcileAt = service.now() + min(Int64(1) << Int64(min(attempt, 20)), 300)
                logger.info("gateway reconciler asked the acquirer", metadata: ["payment.intent.id": "\(intent.id)", "attempt": "\(attempt)", "answer": "\(outcome)"])
            case .requiresAction:
                action = try intent.machine.cancel(.abandoned)
            case .requiresCapture:
                action = try intent.machine.cancel(.automatic)
            case .requiresPaymentMethod, .requiresConfirmation, .succeeded, .canceled:
                // A settlement still pending a minute after its request wrote it: completed if
                // it is on the ledger (the request's last write failed), else looked at later.
                if intent.settlement == .pending {
                    _ = try await service.completeSettlementFound(intent, over: stored, merchant: merchant, reader: reader, base: base)
                } else {
                    _ = try await service.save(intent, over: stored, attentionAt: .some(nil))
                }
                return
            }
            _ = try await service.perform(action, on: intent, over: stored, merchant, base: base)
        } catch let error as GatewayFailure where error.category == .card {
            // A declined answer: the intent went back to requires_payment_method and its event
            // was emitted; nobody waits for this answer.
        } catch {
            // Another request moved the intent first, or the store failed: it is looked at again
            // on the next pass, still due.
            logger.debug("gateway janitor left an intent for the next pass", metadata: ["payment.intent.id": "\(stored.id)", "error": "\(error)"])
        }
    }
}

/// A janitor's loop: a pass now and then every `interval` on `clock`, until graceful shutdown.
package func sweepEvery(_ interval: Duration, on clock: any Clock<Duration>, _ sweep: @escaping @Sendable () async -> Void) async throws {
    try await cancelWhenGracefulShutdown {
        while !Task.isCancelled {
            await sweep()
            try? await clock.sleep(for: interval)
        }
    }
}
