import Gateway
import Testing

@Suite("Webhook retries")
struct WebhookRetryPolicyTests {
    @Test func backsOffDoublingThenGivesUp() {
        let policy = WebhookRetryPolicy(baseSeconds: 2, maxDelaySeconds: 30, maxAttempts: 6)
        var delivery = WebhookDelivery(id: "d", merchant: "m", event: "e", endpoint: "we", nextAttemptAt: 100)
        var delays: [Int64] = []
        var now: Int64 = 100
        while delivery.status == .pending {
            delivery = policy.after(delivery, statusCode: 500, now: now)
            if delivery.status == .pending { delays.append(delivery.nextAttemptAt - now); now = delivery.nextAttemptAt }
        }
        #expect(delays == [2, 4, 8, 16, 30])
        #expect(delivery.status == .failed)
        #expect(delivery.attempts == 6)
        #expect(delivery.lastStatusCode == 500)
    }

    @Test func anyTwoHundredDelivers() {
        let policy = WebhookRetryPolicy()
        let pending = WebhookDelivery(id: "d", merchant: "m", event: "e", endpoint: "we", nextAttemptAt: 0)
        for code in [200, 201, 204, 299] { #expect(policy.after(pending, statusCode: code, now: 5).status == .delivered) }
        for code in [0, 199, 300, 301, 404, 500] { #expect(policy.after(pending, statusCode: code, now: 5).status == .pending) }
        // Many attempts never overflow the delay.
        let late = WebhookDelivery(id: "d", merchant: "m", event: "e", endpoint: "we", attempts: 99, nextAttemptAt: 0)
        #expect(WebhookRetryPolicy(maxAttempts: 100).after(late, statusCode: 500, now: 5).status == .failed)
        let many = WebhookDelivery(id: "d", merchant: "m", event: "e", endpoint: "we", attempts: 90, nextAttemptAt: 0)
        #expect(WebhookRetryPolicy(maxAttempts: 100).after(many, statusCode: 500, now: 5).nextAttemptAt == 5 + 3_600)
    }

    @Test func endpointsPickTheirEvents() {
        let all = WebhookEndpointRecord(id: WebhookEndpointID("we"), url: "http://x", enabledEvents: ["*"], created: 0, sealedSecret: [])
        let some = WebhookEndpointRecord(id: WebhookEndpointID("we"), url: "http://x", enabledEvents: ["payment_intent.succeeded"], created: 0, sealedSecret: [])
        #expect(all.wants("charge.refunded"))
        #expect(some.wants("payment_intent.succeeded"))
        #expect(!some.wants("payment_intent.created"))
    }
}
