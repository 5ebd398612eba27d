import Gateway
import TenderJSON

/// Stripe's JSON shapes for the gateway's objects.
package enum GatewayObjects {
    package static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
    package static func optional(_ number: Int64?) -> JSONValue { number.map(JSONValue.number) ?? .null }

    package static func metadata(_ metadata: [String: String]) -> JSONValue {
        .object(metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })
    }

    package static func paymentMethod(_ method: PaymentMethodRecord) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("id", .string(method.id.rawValue)), ("object", "payment_method"), ("type", .string(method.type.rawValue)),
            ("created", .number(method.created)), ("customer", optional(method.customer?.rawValue)), ("livemode", false),
            ("metadata", metadata(method.metadata)),
            ("billing_details", .object([("address", .null), ("email", .null), ("name", .null), ("phone", .null)])),
        ]
        switch method.type {
        case .card:
            if let card = method.card {
                fields.append(("card", .object([
                    ("brand", .string(card.brand.rawValue)), ("last4", .string(card.last4)),
                    ("exp_month", .number(Int64(card.expMonth))), ("exp_year", .number(Int64(card.expYear))),
                    ("country", .string(card.country)), ("fingerprint", .string(card.fingerprint)), ("funding", "credit"),
                    ("checks", .object([("cvc_check", "pass"), ("address_line1_check", .null), ("address_postal_code_check", .null)])),
                    ("three_d_secure_usage", .object([("supported", true)])),
                ])))
            }
        case .ideal: fields.append(("ideal", .object([("bank", optional(method.bank)), ("bic", .null)])))
        case .bancontact: fields.append(("bancontact", .object([])))
        }
        return .object(fields)
    }

    /// The intent as Stripe shows it; `base` is the server's URL, for the test pages.
    package static func paymentIntent(_ intent: PaymentIntentRecord, base: String) -> JSONValue {
        paymentIntent(intent, nextActionURL: actionPage(intent, base: base))
    }

    /// The test page an intent waiting for the customer sends them to (3-D Secure or the bank).
    package static func actionPage(_ intent: PaymentIntentRecord, base: String) -> String {
        let page = intent.machine.pendingAction == .bankRedirect ? "bank" : "3ds"
        return "\(base)/v1/test/\(page)/\(intent.id)?client_secret=\(intent.clientSecret)"
    }

    package static func paymentIntent(_ intent: PaymentIntentRecord, nextActionURL: String?) -> JSONValue {
        let machine = intent.machine
        var nextAction: JSONValue = .null
        if machine.status == .requiresAction, let nextActionURL {
            nextAction = .object([
                ("type", "redirect_to_url"),
                ("redirect_to_url", .object([("url", .string(nextActionURL)), ("return_url", optional(intent.returnURL))])),
            ])
        }
        var lastError: JSONValue = .null
        if let failure = machine.lastPaymentError {
            var fields: [(String, JSONValue)] = [
                ("type", .string(failure.code == "payment_intent_authentication_failure" || failure.code == "payment_method_provider_decline" ? "invalid_request_error" : "card_error")),
                ("code", .string(failure.code)), ("message", .string(failure.message)),
            ]
            if let decline = failure.declineCode { fields.append(("decline_code", .string(decline))) }
            lastError = .object(fields)
        }
        return .object([
            ("id", .string(intent.id.rawValue)), ("object", "payment_intent"),
            ("amount", .number(machine.amount)), ("amount_capturable", .number(machine.amountCapturable)),
            ("amount_received", .number(machine.amountReceived)),
            ("canceled_at", optional(intent.canceledAt)), ("cancellation_reason", optional(machine.cancellationReason?.rawValue)),
            ("capture_method", .string(machine.captureMethod.rawValue)), ("client_secret", .string(intent.clientSecret)),
            ("confirmation_method", "automatic"), ("created", .number(intent.created)), ("currency", .string(intent.currency)),
            ("customer", optional(intent.customer?.rawValue)), ("description", optional(intent.description)),
            ("last_payment_error", lastError), ("latest_charge", .null), ("livemode", false),
            ("metadata", metadata(intent.metadata)), ("next_action", nextAction),
            ("payment_method", optional(machine.paymentMethod)),
            ("payment_method_types", .array(intent.paymentMethodTypes.map { .string($0.rawValue) })),
            ("statement_descriptor", optional(intent.statementDescriptor)), ("status", .string(machine.status.rawValue)),
            ("amount_refunded", .number(machine.amountRefunded)),
        ])
    }

    package static func customer(_ customer: CustomerRecord) -> JSONValue {
        .object([
            ("id", .string(customer.id.rawValue)), ("object", "customer"), ("created", .number(customer.created)),
            ("email", optional(customer.email)), ("name", optional(customer.name)), ("description", optional(customer.description)),
            ("livemode", false), ("metadata", metadata(customer.metadata)),
        ])
    }

    package static func refund(_ refund: RefundRecord) -> JSONValue {
        .object([
            ("id", .string(refund.id.rawValue)), ("object", "refund"), ("amount", .number(refund.amount)), ("currency", .string(refund.currency)),
            ("created", .number(refund.created)), ("payment_intent", .string(refund.paymentIntent.rawValue)), ("status", .string(refund.status.rawValue)),
            ("reason", optional(refund.reason)), ("failure_reason", optional(refund.failureReason)), ("metadata", metadata(refund.metadata)),
            ("charge", .null),
        ])
    }

    /// The charge Stripe would show for a captured intent (Tender keeps no charges of its own:
    /// the charge's id is derived from the intent's).
    package static func charge(_ intent: PaymentIntentRecord) -> JSONValue {
        let machine = intent.machine
        return .object([
            ("id", .string("ch_" + intent.id.rawValue.dropFirst(3))), ("object", "charge"), ("amount", .number(machine.amount)),
            ("amount_captured", .number(machine.amountReceived)), ("amount_refunded", .number(machine.amountRefunded)),
            ("captured", .bool(machine.amountReceived > 0)), ("currency", .string(intent.currency)), ("created", .number(intent.created)),
            ("livemode", false), ("paid", .bool(machine.amountReceived > 0)), ("payment_intent", .string(intent.id.rawValue)),
            ("payment_method", optional(machine.paymentMethod)), ("refunded", .bool(machine.amountRefunded == machine.amountReceived && machine.amountReceived > 0)),
            ("status", "succeeded"),
        ])
    }

    package static func webhookEndpoint(_ endpoint: WebhookEndpointRecord, secret: String?) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("id", .string(endpoint.id.rawValue)), ("object", "webhook_endpoint"), ("url", .string(endpoint.url)),
            ("enabled_events", .array(endpoint.enabledEvents.map(JSONValue.string))), ("created", .number(endpoint.created)),
            ("livemode", false), ("status", .string(endpoint.disabled == true ? "disabled" : "enabled")), ("api_version", "2024-06-20"),
            ("description", optional(endpoint.description)),
        ]
        if let secret { fields.append(("secret", .string(secret))) }
        return .object(fields)
    }

    package static func payout(_ payout: PayoutRecord) -> JSONValue {
        .object([
            ("id", .string(payout.id.rawValue)), ("object", "payout"), ("amount", .number(payout.amount)), ("currency", .string(payout.currency)),
            ("arrival_date", .number(payout.created)), ("created", .number(payout.created)), ("destination", .string(payout.destination)),
            ("method", "instant"), ("status", "paid"), ("type", "stellar"), ("livemode", false), ("metadata", metadata(payout.metadata)),
            ("balance_transaction", .string(payout.ledgerTransaction)),
        ])
    }

    package static func list(_ data: [JSONValue], hasMore: Bool, url: String) -> JSONValue {
        .object([("object", "list"), ("data", .array(data)), ("has_more", .bool(hasMore)), ("url", .string(url))])
    }
}
