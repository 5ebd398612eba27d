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
            ("allow_redisplay", "unspecified"), ("created", .number(method.created)), ("customer", optional(method.customer?.rawValue)),
            ("customer_account", .null), ("livemode", false), ("radar_options", .null),
            ("metadata", metadata(method.metadata)),
            ("billing_details", billingDetails(method.billing)),
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
            ("last_payment_error", lastError),
            ("latest_charge", optional(intent.charges?.last.map { intent.id.charge($0.number).rawValue })), ("livemode", false),
            ("metadata", metadata(intent.metadata)), ("next_action", nextAction),
            ("payment_method", optional(machine.paymentMethod)),
            ("payment_method_types", .array(intent.paymentMethodTypes.map { .string($0.rawValue) })),
            ("statement_descriptor", optional(intent.statementDescriptor)), ("status", .string(machine.status.rawValue)),
            ("amount_refunded", .number(machine.amountRefunded)),
            ("allowed_payment_method_types", .null), ("amount_details", .object([("tip", .object([]))])), ("application", .null), ("application_fee_amount", .null),
            ("automatic_payment_methods", .null), ("customer_account", .null), ("excluded_payment_method_types", .null), ("hooks", .null),
            ("managed_payments", .null), ("on_behalf_of", .null), ("payment_details", .null), ("payment_method_configuration_details", .null),
            ("payment_method_options", .null), ("payment_record", .null), ("presentment_details", .null), ("processing", .null),
            ("receipt_email", .null), ("review", .null), ("setup_future_usage", optional(intent.setupFutureUsage?.rawValue)), ("shipping", .null), ("source", .null),
            ("statement_descriptor_suffix", .null), ("transfer_data", .null), ("transfer_group", .null),
        ])
    }

    /// A setup intent as Stripe shows it; `base` is the server's URL, for the 3-D Secure page.
    package static func setupIntent(_ intent: SetupIntentRecord, base: String) -> JSONValue {
        let machine = intent.machine
        var nextAction: JSONValue = .null
        if machine.status == .requiresAction {
            nextAction = .object([
                ("type", "redirect_to_url"),
                ("redirect_to_url", .object([
                    ("url", .string("\(base)/v1/test/3ds/\(intent.id)?client_secret=\(intent.clientSecret)")), ("return_url", optional(intent.returnURL)),
                ])),
            ])
        }
        var lastError: JSONValue = .null
        if let failure = machine.lastSetupError {
            var fields: [(String, JSONValue)] = [
                ("type", .string(failure.code == "setup_intent_authentication_failure" ? "invalid_request_error" : "card_error")),
                ("code", .string(failure.code)), ("message", .string(failure.message)),
            ]
            if let decline = failure.declineCode { fields.append(("decline_code", .string(decline))) }
            lastError = .object(fields)
        }
        return .object([
            ("id", .string(intent.id.rawValue)), ("object", "setup_intent"), ("allowed_payment_method_types", .null), ("application", .null),
            ("attach_to_self", .null), ("managed_payments", .null),
            ("automatic_payment_methods", .null), ("cancellation_reason", optional(machine.cancellationReason?.rawValue)),
            ("client_secret", .string(intent.clientSecret)), ("created", .number(intent.created)), ("customer", optional(intent.customer?.rawValue)),
            ("customer_account", .null), ("description", optional(intent.description)), ("excluded_payment_method_types", .null),
            ("flow_directions", .null), ("last_setup_error", lastError), ("latest_attempt", .null), ("livemode", false), ("mandate", .null),
            ("metadata", metadata(intent.metadata)), ("next_action", nextAction), ("on_behalf_of", .null),
            ("payment_method", optional(machine.paymentMethod)), ("payment_method_configuration_details", .null), ("payment_method_options", .null),
            ("payment_method_types", ["card"]), ("single_use_mandate", .null), ("status", .string(machine.status.rawValue)),
            ("usage", .string(intent.usage.rawValue)),
        ])
    }

    /// A Checkout Session as Stripe shows it, its status from its intent; `url` is its page.
    package static func checkoutSession(_ session: CheckoutSessionRecord, intent: PaymentIntentRecord, now: Int64, base: String) -> JSONValue {
        let status = CheckoutSessionStatus.of(session, intentStatus: intent.machine.status, now: now)
        let successURL = session.successURL.replacingOccurrences(of: "{CHECKOUT_SESSION_ID}", with: session.id.rawValue)
        var fields: [(String, JSONValue)] = [
            ("id", .string(session.id.rawValue)), ("object", "checkout.session"), ("amount_subtotal", .number(session.amountTotal)),
            ("amount_total", .number(session.amountTotal)),
            ("automatic_tax", .object([("enabled", false), ("liability", .null), ("provider", .null), ("status", .null)])),
            ("cancel_url", optional(session.cancelURL)), ("client_reference_id", optional(session.clientReferenceID)), ("created", .number(session.created)),
            ("currency", .string(session.currency)), ("custom_fields", .array([])),
            ("custom_text", .object([("after_submit", .null), ("shipping_address", .null), ("submit", .null), ("terms_of_service_acceptance", .null)])),
            ("customer", optional(session.customer?.rawValue)), ("customer_email", optional(session.customerEmail)),
            ("expires_at", .number(session.expiresAt)), ("livemode", false), ("metadata", metadata(session.metadata)), ("mode", "payment"),
            ("payment_intent", .string(session.paymentIntent.rawValue)),
            ("payment_method_types", .array(session.paymentMethodTypes.map { .string($0.rawValue) })),
            ("payment_status", .string(intent.machine.status == .succeeded ? "paid" : "unpaid")), ("shipping_options", .array([])),
            ("status", .string(status.rawValue)), ("success_url", .string(successURL)),
            ("total_details", .object([("amount_discount", 0), ("amount_shipping", 0), ("amount_tax", 0)])), ("ui_mode", "hosted"),
            ("url", status == .open ? .string("\(base)/pay/\(session.id)") : .null),
        ]
        for name in [
            "adaptive_pricing", "after_expiration", "allow_promotion_codes", "allowed_payment_method_types", "billing_address_collection",
            "branding_settings", "client_secret", "collected_information", "consent", "consent_collection", "currency_conversion", "customer_account",
            "customer_creation", "customer_details", "discounts", "excluded_payment_method_types", "integration_identifier", "invoice", "invoice_creation",
            "locale", "managed_payments", "name_collection", "optional_items", "origin_context", "payment_link", "payment_method_collection",
            "payment_method_configuration_details", "payment_method_options", "permissions", "phone_number_collection", "presentment_details",
            "recovered_from", "redirect_on_completion", "return_url", "saved_payment_method_options", "setup_intent", "shipping_address_collection",
            "shipping_cost", "submit_type", "subscription", "tax_id_collection", "wallet_options",
        ] { fields.append((name, .null)) }
        return .object(fields)
    }

    /// The id of a session's line.
    package static func lineItemID(_ session: CheckoutSessionRecord, index: Int) -> String {
        "li_\(session.id.rawValue.dropFirst(8))_\(index)"
    }

    /// A session's line, with the price Stripe makes of its `price_data`.
    package static func lineItem(_ item: SessionLineItem, index: Int, of session: CheckoutSessionRecord) -> JSONValue {
        let suffix = lineItemID(session, index: index).dropFirst(3)
        let total = item.unitAmount * item.quantity
        return .object([
            ("id", .string(lineItemID(session, index: index))), ("object", "item"), ("amount_discount", 0), ("amount_subtotal", .number(total)), ("amount_tax", 0),
            ("amount_total", .number(total)), ("currency", .string(session.currency)), ("description", .string(item.name)),
            ("price", .object([
                ("id", .string("price_" + suffix)), ("object", "price"), ("active", false), ("billing_scheme", "per_unit"), ("created", .number(session.created)),
                ("currency", .string(session.currency)), ("livemode", false), ("metadata", .object([])), ("nickname", .null),
                ("product", .string("prod_" + suffix)), ("recurring", .null), ("tax_behavior", "unspecified"), ("type", "one_time"),
                ("unit_amount", .number(item.unitAmount)),
            ])),
            ("quantity", .number(item.quantity)), ("adjustable_quantity", .null), ("discounts", .array([])), ("metadata", .object([])),
            ("taxes", .array([])),
        ])
    }

    package static func customer(_ customer: CustomerRecord) -> JSONValue {
        .object([
            ("id", .string(customer.id.rawValue)), ("object", "customer"), ("address", .null), ("balance", 0), ("business_name", .null),
            ("cash_balance", .null), ("created", .number(customer.created)), ("currency", .null), ("customer_account", .null),
            ("default_source", .null), ("delinquent", false), ("description", optional(customer.description)), ("discount", .null),
            ("email", optional(customer.email)), ("individual_name", .null), ("invoice_credit_balance", .object([])),
            ("invoice_prefix", .string(String(customer.id.rawValue.dropFirst(4).prefix(8)).uppercased())),
            ("invoice_settings", .object([
                ("custom_fields", .null), ("default_payment_method", optional(customer.defaultPaymentMethod?.rawValue)), ("footer", .null),
                ("rendering_options", .null),
            ])),
            ("livemode", false), ("metadata", metadata(customer.metadata)), ("name", optional(customer.name)), ("next_invoice_sequence", 1),
            ("phone", optional(customer.phone)), ("preferred_locales", .array([])), ("shipping", .null), ("sources", .null),
            ("subscriptions", .null), ("tax", .null), ("tax_exempt", "none"), ("tax_ids", .null), ("test_clock", .null),
        ])
    }

    /// What Stripe answers for a deleted object.
    package static func deleted(_ id: String, object: String) -> JSONValue {
        .object([("id", .string(id)), ("object", .string(object)), ("deleted", true)])
    }

    package static func refund(_ refund: RefundRecord) -> JSONValue {
        .object([
            ("id", .string(refund.id.rawValue)), ("object", "refund"), ("amount", .number(refund.amount)), ("currency", .string(refund.currency)),
            ("created", .number(refund.created)), ("payment_intent", .string(refund.paymentIntent.rawValue)), ("status", .string(refund.status.rawValue)),
            ("reason", optional(refund.reason)), ("failure_reason", optional(refund.failureReason)), ("metadata", metadata(refund.metadata)),
            ("charge", optional(refund.charge?.rawValue)),
            ("balance_transaction", refund.status == .succeeded ? .string(GatewayService.balanceTransactionID(source: refund.id.rawValue).rawValue) : .null), ("customer", .null), ("customer_account", .null),
            ("description", .null), ("destination_details", .null), ("failure_balance_transaction", .null), ("instructions_email", .null),
            ("next_action", .null), ("payment_method", .null), ("pending_reason", .null), ("presentment_details", .null), ("receipt_number", .null),
            ("source_transfer_reversal", .null), ("transfer_reversal", .null),
        ])
    }

    /// A charge: one attempt to pay `intent`, with what the intent captured and refunded
    /// when it is the succeeded one.
    package static func charge(_ charge: ChargeAttempt, of intent: PaymentIntentRecord) -> JSONValue {
        let machine = intent.machine
        let succeeded = charge.status == .succeeded
        let captured = succeeded && machine.amountReceived > 0
        let refunded = succeeded ? intent.chargeAmountRefunded : 0
        let chargeID = intent.id.charge(charge.number).rawValue
        // Its balance transaction once its money reached the merchant's balance (a marketplace
        // order's goes to escrow instead).
        let settled = captured && intent.settlement == .settled && intent.escrowAccount == nil
        let balanceTransaction = settled ? optional(GatewayService.balanceTransactionID(source: chargeID).rawValue) : .null
        var outcome: JSONValue = .null
        switch charge.status {
        case .succeeded:
            outcome = .object([
                ("network_status", "approved_by_network"), ("reason", .null), ("risk_level", "normal"), ("risk_score", .number(20)),
                ("seller_message", "Payment complete."), ("type", "authorized"),
            ])
        case .failed:
            outcome = .object([
                ("network_status", "declined_by_network"), ("reason", optional(charge.failure?.declineCode)), ("risk_level", "normal"),
                ("risk_score", .number(20)), ("seller_message", "The bank did not return any further details with this decline."), ("type", "issuer_declined"),
            ])
        case .pending:
            break
        }
        return .object([
            ("id", .string(chargeID)), ("object", "charge"), ("amount", .number(charge.amount)),
            ("amount_captured", .number(captured ? machine.amountReceived : 0)), ("amount_refunded", .number(refunded)),
            ("application", .null), ("application_fee", .null), ("application_fee_amount", .null), ("authorization_code", .null),
            ("balance_transaction", balanceTransaction), ("billing_details", billingDetails(charge.method?.billing)),
            ("calculated_statement_descriptor", .string(intent.statementDescriptor ?? "TENDER")), ("captured", .bool(captured)),
            ("created", .number(charge.created)), ("currency", .string(intent.currency)), ("customer", optional(intent.customer?.rawValue)),
            ("description", optional(intent.description)), ("disputed", false), ("failure_balance_transaction", .null),
            ("failure_code", optional(charge.failure?.code)), ("failure_message", optional(charge.failure?.message)),
            ("fraud_details", .object([])), ("level3", .null), ("livemode", false), ("metadata", metadata(intent.metadata)), ("on_behalf_of", .null),
            ("outcome", outcome), ("paid", .bool(succeeded)), ("payment_intent", .string(intent.id.rawValue)),
            ("payment_method", optional(charge.method?.id.rawValue)), ("payment_method_details", charge.method.map { methodDetails($0, charge) } ?? .null),
            ("presentment_details", .null), ("radar_options", .null), ("receipt_email", .null), ("receipt_number", .null), ("receipt_url", .null),
            ("refunded", .bool(succeeded && refunded == charge.amount)), ("refunds", .null), ("review", .null), ("shipping", .null), ("source", .null),
            ("source_transfer", .null), ("statement_descriptor", optional(intent.statementDescriptor)), ("statement_descriptor_suffix", .null),
            ("status", .string(charge.status.rawValue)), ("transfer", .null), ("transfer_data", .null), ("transfer_group", .null),
        ])
    }

    /// What a charge shows of its payment method: the card's brand, last four, checks and
    /// 3-D Secure result, or the bank.
    static func methodDetails(_ method: ChargeMethod, _ charge: ChargeAttempt) -> JSONValue {
        switch method.type {
        case .card:
            guard let card = method.card else { return .object([("type", "card"), ("card", .null)]) }
            var secure: JSONValue = .null
            if let flow = card.authenticationFlow {
                secure = .object([("authentication_flow", .string(flow)), ("result", "authenticated"), ("result_reason", .null), ("version", "2.2.0")])
            }
            return .object([("type", "card"), ("card", .object([
                ("brand", .string(card.brand.rawValue)), ("last4", .string(card.last4)),
                ("exp_month", .number(Int64(card.expMonth))), ("exp_year", .number(Int64(card.expYear))),
                ("country", .string(card.country)), ("fingerprint", .string(card.fingerprint)), ("funding", "credit"),
                ("network", .string(card.brand.rawValue)), ("three_d_secure", secure),
                ("checks", .object([("cvc_check", "pass"), ("address_line1_check", .null), ("address_postal_code_check", .null)])),
            ]))])
        case .ideal:
            return .object([("type", "ideal"), ("ideal", .object([
                ("bank", optional(method.bank)), ("bic", .null), ("iban_last4", charge.status == .succeeded ? "5264" : .null),
                ("verified_name", charge.status == .succeeded ? optional(method.billing?.name) : .null),
            ]))])
        case .bancontact:
            return .object([("type", "bancontact"), ("bancontact", .object([
                ("bank_code", .null), ("bank_name", .null), ("bic", .null), ("iban_last4", charge.status == .succeeded ? "7061" : .null),
                ("preferred_language", .null), ("verified_name", charge.status == .succeeded ? optional(method.billing?.name) : .null),
            ]))])
        }
    }

    /// Stripe's `billing_details`: every field present, null when not given.
    package static func billingDetails(_ billing: BillingDetails?) -> JSONValue {
        var address: JSONValue = .null
        if let given = billing?.address {
            address = .object([
                ("city", optional(given.city)), ("country", optional(given.country)), ("line1", optional(given.line1)),
                ("line2", optional(given.line2)), ("postal_code", optional(given.postalCode)), ("state", optional(given.state)),
            ])
        }
        return .object([("address", address), ("email", optional(billing?.email)), ("name", optional(billing?.name)), ("phone", optional(billing?.phone))])
    }

    package static func webhookEndpoint(_ endpoint: WebhookEndpointRecord, secret: String?) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("id", .string(endpoint.id.rawValue)), ("object", "webhook_endpoint"), ("url", .string(endpoint.url)),
            ("enabled_events", .array(endpoint.enabledEvents.map(JSONValue.string))), ("created", .number(endpoint.created)),
            ("livemode", false), ("status", .string(endpoint.disabled == true ? "disabled" : "enabled")), ("api_version", "2024-06-20"),
            ("application", .null), ("description", optional(endpoint.description)), ("metadata", metadata(endpoint.metadata ?? [:])),
        ]
        if let secret { fields.append(("secret", .string(secret))) }
        return .object(fields)
    }

    package static func payout(_ payout: PayoutRecord) -> JSONValue {
        .object([
            ("id", .string(payout.id.rawValue)), ("object", "payout"), ("amount", .number(payout.amount)), ("currency", .string(payout.currency)),
            ("arrival_date", .number(payout.created)), ("created", .number(payout.created)), ("destination", .string(payout.destination)),
            ("method", "instant"), ("status", "paid"), ("type", "stellar"), ("livemode", false), ("metadata", metadata(payout.metadata)),
            ("balance_transaction", .string(GatewayService.balanceTransactionID(source: payout.id.rawValue).rawValue)), ("application_fee", .null), ("application_fee_amount", .null),
            ("automatic", false), ("description", optional(payout.description)), ("failure_balance_transaction", .null), ("failure_code", .null),
            ("failure_message", .null), ("original_payout", .null), ("payout_method", .null), ("reconciliation_status", "not_applicable"),
            ("reversed_by", .null), ("source_type", "card"), ("statement_descriptor", .null), ("trace_id", .null),
        ])
    }

    /// A balance transaction: available at once (Tender settles on the ledger before it
    /// answers), its fee detailed as Tender's.
    package static func balanceTransaction(_ record: BalanceTransactionRecord) -> JSONValue {
        let category: String = switch record.type {
        case .charge, .payment: "charge"
        case .refund: "refund"
        case .payout: "payout"
        case .transfer: "transfer"
        case .adjustment: "other_adjustment"
        }
        return .object([
            ("id", .string(record.id.rawValue)), ("object", "balance_transaction"), ("amount", .number(record.amount)),
            ("available_on", .number(record.created)), ("balance_type", "payments"), ("created", .number(record.created)),
            ("currency", .string(record.currency)), ("description", optional(record.description)), ("exchange_rate", .null),
            ("fee", .number(record.fee)),
            ("fee_details", .array(record.fee > 0 ? [.object([
                ("amount", .number(record.fee)), ("application", .null), ("currency", .string(record.currency)),
                ("description", "Tender processing fees"), ("type", "stripe_fee"),
            ])] : [])),
            ("net", .number(record.net)), ("reporting_category", .string(category)), ("source", .string(record.source)),
            ("status", "available"), ("type", .string(record.type.rawValue)),
        ])
    }

    /// One event's delivery to one endpoint (Tender's own object: Stripe shows these in its
    /// Dashboard only).
    package static func delivery(_ delivery: WebhookDelivery) -> JSONValue {
        .object([
            ("id", .string(delivery.id)), ("object", "webhook_delivery"), ("event", .string(delivery.event)), ("endpoint", .string(delivery.endpoint)),
            ("status", .string(delivery.status.rawValue)), ("attempts", .number(Int64(delivery.attempts))),
            ("last_status_code", optional(delivery.lastStatusCode.map(Int64.init))), ("last_attempt_at", optional(delivery.lastAttemptAt)),
            ("next_attempt_at", delivery.status == .pending ? .number(delivery.nextAttemptAt) : .null),
        ])
    }

    package static func list(_ data: [JSONValue], hasMore: Bool, url: String) -> JSONValue {
        .object([("object", "list"), ("data", .array(data)), ("has_more", .bool(hasMore)), ("url", .string(url))])
    }
}
