import Gateway
import GatewayCore
import Hummingbird
import TenderJSON
import Testing
@testable import TenderServer

/// One failure of the gateway's core, answered in each API's own shape: Stripe's
/// `{"error": {type, code, message, param}}`, Paylike's `{code, message, errors}` and the
/// checkout's `{"error": {code, message}}`, with the same HTTP status from the one mapping.
@Suite("A core failure in each wire shape")
struct FailureShapeTests {
    /// (failure, status, Stripe's type).
    let cases: [(GatewayFailure, Int, String)] = [
        (.invalid("amount", "Amount must be at least 50 minor units.", code: .amountTooSmall), 400, "invalid_request_error"),
        (.notFound("payment_intent", "pi_nothere"), 404, "invalid_request_error"),
        (.changedMeanwhile, 409, "invalid_request_error"),
        (GatewayFailure(.card, code: "card_declined", message: "Your card was declined.", declineCode: "insufficient_funds"), 402, "card_error"),
        (GatewayFailure(.authentication, code: nil, message: "Invalid API Key provided."), 401, "authentication_error"),
        (GatewayFailure(.permission, code: nil, message: "A secret key only."), 403, "permission_error"),
        (GatewayFailure(.idempotency, code: nil, message: "Keys for idempotent requests..."), 400, "idempotency_error"),
        (GatewayFailure(.idempotencyInUse, code: nil, message: "Another request runs."), 409, "idempotency_error"),
        (.internal(GatewayError(code: "x", message: "y"), "The gateway could not finish this request."), 500, "api_error"),
    ]

    @Test func stripe() throws {
        for (failure, status, type) in cases {
            let error = StripeError(failure, base: "http://127.0.0.1")
            #expect(Int(error.status.code) == status && error.kind.rawValue == type, "\(failure)")
            guard case .object(let outer) = error.json, case .object(let fields)? = outer.first?.1 else { Issue.record("not Stripe's shape"); continue }
            let names = fields.map(\.0)
            #expect(outer.first?.0 == "error" && names.contains("type") && names.contains("message"))
            #expect(names.contains("code") == (failure.code != nil) && names.contains("param") == (failure.parameter != nil))
            #expect(names.contains("decline_code") == (failure.declineCode != nil))
        }
        // A decline carries the intent as it stands, rendered whole.
        let intent = PaymentIntentRecord(id: PaymentIntentID("pi_1"), clientSecret: "pi_1_secret_x", currency: "eur", created: 1, machine: PaymentIntentStateMachine(amount: 100, captureMethod: .automatic), paymentMethodTypes: [.card])
        let declined = StripeError(GatewayFailure(.card, code: "card_declined", message: "Declined.", paymentIntent: intent), base: "http://127.0.0.1")
        guard case .object(let fields)? = declined.paymentIntent, case .string(let id)? = fields.first(where: { $0.0 == "id" })?.1 else {
            Issue.record("no intent"); return
        }
        #expect(id == "pi_1")
    }

    @Test func paylike() {
        for (failure, status, _) in cases {
            let problem = PaylikeProblem(failure)
            #expect(Int(problem.status.code) == status && problem.code == problem.code.uppercased() && !problem.code.isEmpty, "\(failure)")
            #expect(problem.errors.isEmpty, "as the gateway's refusals always were")
        }
        #expect(PaylikeProblem(.invalid("amount", "too small", code: .amountTooSmall)).code == "AMOUNT_TOO_SMALL")
    }

    @Test func checkout() {
        for (failure, status, _) in cases {
            let error = CheckoutError(failure)
            #expect(Int(error.status.code) == status && error.code == (failure.code?.rawValue ?? "invalid_request"), "\(failure)")
        }
    }
}
