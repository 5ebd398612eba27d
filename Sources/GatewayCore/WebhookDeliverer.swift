import Foundation
import Gateway
import Logging
import ServiceLifecycle
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Wakes a waiting loop: a signal given while nobody waits is kept for the next wait.
package final class WakeupSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?

    package init() {}

    package func signal() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            if let waiter = self.waiter {
                self.waiter = nil
                return waiter
            }
            pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns at the next signal (or at once if one is pending), or when the task is cancelled.
    package func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = lock.withLock {
                    if pending || Task.isCancelled {
                        pending = false
                        return true
                    }
                    waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
                defer { self.waiter = nil }
                return self.waiter
            }
            waiter?.resume()
        }
    }
}

/// Delivers the gateway's events to the merchants' webhook endpoints: a service of its own.
/// Deliveries are rows of the store, so a restart loses none; each failed one is tried again
/// by the retry policy. Woken when an event is stored, and otherwise at the next due time (at
/// most a second later).
package struct WebhookDeliverer: Service {
    package let store: any GatewayStore
    package let secrets: ServerSecrets
    package let policy: WebhookRetryPolicy
    package let wakeup: WakeupSignal
    package let now: @Sendable () -> Int64
    package let clock: any Clock<Duration>
    /// Sends one delivery; the HTTP status of the answer, 0 when there was none.
    package let send: @Sendable (_ url: String, _ body: [UInt8], _ signature: String) async -> Int
    package let logger: Logger

    package init(
        store: any GatewayStore, secrets: ServerSecrets, policy: WebhookRetryPolicy, wakeup: WakeupSignal, now: @escaping @Sendable () -> Int64,
        clock: any Clock<Duration>, send: @escaping @Sendable (_ url: String, _ body: [UInt8], _ signature: String) async -> Int, logger: Logger
    ) {
        self.store = store
        self.secrets = secrets
        self.policy = policy
        self.wakeup = wakeup
        self.now = now
        self.clock = clock
        self.send = send
        self.logger = logger
    }
    /// The most deliveries in flight at once.
    package static let concurrency = 16

    package func run() async throws {
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let due: [WebhookDelivery]
                do {
                    due = try await store.dueDeliveries(now: now(), limit: Self.concurrency)
                } catch is CancellationError {
                    break
                } catch {
                    logger.error("webhook deliveries could not be read", metadata: ["error": "\(error)"])
                    try? await clock.sleep(for: .seconds(1))
                    continue
                }
                if due.isEmpty {
                    await waitForWork()
                    continue
                }
                await withTaskGroup(of: Void.self) { group in
                    for delivery in due { group.addTask { await deliver(delivery) } }
                }
            }
        }
    }

    /// Until an event is stored, or a second passes (a retry may have come due).
    private func waitForWork() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wakeup.wait() }
            group.addTask { try? await clock.sleep(for: .seconds(1)) }
            await group.next()
            group.cancelAll()
        }
    }

    package func deliver(_ delivery: WebhookDelivery) async {
        do {
            // An event of the merchant's, or a test event sent to this endpoint by hand.
            var eventObject = try await store.object(id: delivery.event, kind: .event, merchant: delivery.merchant)
            if eventObject == nil { eventObject = try await store.object(id: delivery.event, kind: .testEvent, merchant: delivery.merchant) }
            guard let endpointObject = try await store.object(id: delivery.endpoint, kind: .webhookEndpoint, merchant: delivery.merchant),
                  let eventObject else {
                var gone = delivery
                gone.status = .failed
                try await store.updateDelivery(gone)
                return
            }
            let endpoint = try JSONDecoder().decode(WebhookEndpointRecord.self, from: Data(endpointObject.body))
            let secret = String(decoding: try secrets.open(endpoint.sealedSecret), as: UTF8.self)
            let timestamp = now()
            let status = await send(endpoint.url, eventObject.body, WebhookSignature.header(secret: secret, timestamp: timestamp, body: eventObject.body))
            let next = policy.after(delivery, statusCode: status, now: now())
            try await store.updateDelivery(next)
            logger.debug("webhook delivery attempted", metadata: [
                "webhook.delivery.id": "\(delivery.id)", "webhook.endpoint.id": "\(endpoint.id)", "event.id": "\(delivery.event)",
                "http.status": "\(status)", "webhook.delivery.status": "\(next.status.rawValue)",
            ])
        } catch {
            logger.error("webhook delivery failed", metadata: ["webhook.delivery.id": "\(delivery.id)", "error": "\(error)"])
        }
    }

    /// POSTs over URLSession (FoundationNetworking on Linux), through a completion handler (see
    /// WalletKit's transport for why), with a 10-second timeout.
    package static let urlSessionSend: @Sendable (String, [UInt8], String) async -> Int = { url, body, signature in
        guard let target = URL(string: url) else { return 0 }
        var request = URLRequest(url: target, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
        request.setValue(signature, forHTTPHeaderField: "Stripe-Signature")
        request.setValue("Tender/1.0 (+webhooks)", forHTTPHeaderField: "User-Agent")
        return await withCheckedContinuation { continuation in
            URLSession.shared.dataTask(with: request) { _, response, _ in
                continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
            }.resume()
        }
    }
}
