import Foundation
import Gateway
import StellarBase

/// A card as a merchant's form gives it: the number and expiry as typed, the security code if
/// asked. Never stored: only what ``CardRules`` derives from it (brand, last four, expiry, a
/// keyed fingerprint).
package struct CardDetails: Sendable {
    package var number: String
    package var expMonth: String
    package var expYear: String
    package var cvc: String?

    package init(number: String, expMonth: String, expYear: String, cvc: String?) {
        self.number = number
        self.expMonth = expMonth
        self.expYear = expYear
        self.cvc = cvc
    }
}

/// A payment method to make.
package struct NewPaymentMethod: Sendable {
    package var type: PaymentMethodType
    /// For a card: its details or `cardToken`.
    package var card: CardDetails?
    /// For a card: one of Stripe's test tokens (`tok_visa`...), instead of its details.
    package var cardToken: String?
    /// For iDEAL: the customer's bank, if given.
    package var bank: String?
    package var billing: BillingDetails?
    package var metadata: [String: String]

    package init(type: PaymentMethodType, card: CardDetails? = nil, cardToken: String? = nil, bank: String? = nil, billing: BillingDetails? = nil, metadata: [String: String] = [:]) {
        self.type = type
        self.card = card
        self.cardToken = cardToken
        self.bank = bank
        self.billing = billing
        self.metadata = metadata
    }
}

/// A customer to make.
package struct NewCustomer: Sendable {
    package var email: String?
    package var name: String?
    package var description: String?
    package var phone: String?
    package var metadata: [String: String]
    /// A payment method to save for it at once (Stripe's `payment_method`).
    package var paymentMethod: PaymentMethodID?

    package init(email: String? = nil, name: String? = nil, description: String? = nil, phone: String? = nil, metadata: [String: String] = [:], paymentMethod: PaymentMethodID? = nil) {
        self.email = email
        self.name = name
        self.description = description
        self.phone = phone
        self.metadata = metadata
        self.paymentMethod = paymentMethod
    }
}

/// A customer's changes: nil leaves a field as it is, an empty text clears it, a metadata value
/// of nil deletes its key.
package struct CustomerChanges: Sendable {
    package var email: String?
    package var name: String?
    package var description: String?
    package var phone: String?
    package var metadata: [String: String?]?
    /// One of its saved payment methods; empty clears it.
    package var defaultPaymentMethod: PaymentMethodID?

    package init(email: String? = nil, name: String? = nil, description: String? = nil, phone: String? = nil, metadata: [String: String?]? = nil, defaultPaymentMethod: PaymentMethodID? = nil) {
        self.email = email
        self.name = name
        self.description = description
        self.phone = phone
        self.metadata = metadata
        self.defaultPaymentMethod = defaultPaymentMethod
    }
}

/// A customer as read: as it is, or deleted (Stripe answers a deleted customer's id so).
package enum CustomerState: Sendable {
    case live(CustomerRecord)
    case deleted(CustomerID)
}

/// Payment methods, customers and webhook endpoints: the merchant's objects that move no money.
extension GatewayService {
    /// The month it is now, in UTC, for card expiries.
    package func today() -> YearMonth {
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: TimeInterval(now())))
        return YearMonth(year: components.year!, month: components.month!)
    }

    /// Makes a payment method; a card checked by ``CardRules`` (its number, expiry and code
    /// never kept).
    /// - Throws: ``GatewayFailure``: a card failure for a number, expiry or code the rules refuse
    ///   (its parameter named `card[...]`), `parameter_missing` for a card without details.
    package func createPaymentMethod(_ new: NewPaymentMethod, merchant: MerchantRecord) async throws(GatewayFailure) -> PaymentMethodRecord {
        let record = try makePaymentMethod(new)
        return try await failing { () async throws -> PaymentMethodRecord in
            try await insert(record, id: record.id, merchant: merchant)
            return record
        }
    }

    /// A new payment method checked by the rules, not yet stored.
    func makePaymentMethod(_ new: NewPaymentMethod) throws(GatewayFailure) -> PaymentMethodRecord {
        let id = PaymentMethodID(newID("pm"))
        var record = PaymentMethodRecord(id: id, type: new.type, created: now())
        record.metadata = new.metadata
        record.billing = new.billing
        switch new.type {
        case .card:
            var given = new.card
            if let token = new.cardToken {
                guard given == nil else { throw GatewayFailure.invalid("card[token]", "Give either a card's details or a token, not both.") }
                guard let number = TestPaymentMethods.cardNumber(token: token) else {
                    throw GatewayFailure.invalid("card[token]", "No such token: '\(token.prefix(100))'", code: .resourceMissing)
                }
                given = testCard(number)
            }
            guard let card = given else { throw GatewayFailure.missing("card") }
            do {
                let (digits, brand) = try CardRules.checkNumber(card.number)
                let month = try Self.cardInteger(card.expMonth, name: "exp_month")
                let year = try Self.cardInteger(card.expYear, name: "exp_year")
                let expiry = try CardRules.checkExpiry(month: month, year: year, today: today())
                if let cvc = card.cvc { try CardRules.checkSecurityCode(cvc, brand: brand) }
                record.card = .init(
                    brand: brand, last4: String(digits.suffix(4)), expMonth: expiry.month, expYear: expiry.year, country: "NL",
                    fingerprint: secrets.fingerprint(cardDigits: digits), outcome: TestAcquirer.outcome(forCardDigits: digits))
                if TestAcquirer.exemptOnceSetUp.contains(digits) { record.card?.exemptOnceSetUp = true }
            } catch {
                guard let check = error as? CardCheckError else {
                    throw (error as? GatewayFailure) ?? GatewayFailure.internal(error, "The card could not be checked.")
                }
                throw GatewayFailure.card(check)
            }
        case .ideal:
            record.bank = new.bank
        case .bancontact:
            break
        }
        return record
    }

    /// One of Stripe's test cards, as its test payment methods and tokens give it: expiring in
    /// December five years from now, without a security code.
    func testCard(_ number: String) -> CardDetails {
        CardDetails(number: number, expMonth: "12", expYear: String(today().year + 5), cvc: nil)
    }

    /// The payment method `id` names: one of the merchant's, or, for one of Stripe's test
    /// payment methods (`pm_card_visa`...), a new one of its card, as Stripe makes one.
    /// - Throws: ``GatewayFailure`` `resource_missing` naming `parameter`.
    func paymentMethod(_ id: PaymentMethodID, merchant: MerchantRecord, parameter: String) async throws -> (PaymentMethodRecord, StoredObject?) {
        if let number = TestPaymentMethods.cardNumber(paymentMethod: id.rawValue) {
            return (try await createPaymentMethod(NewPaymentMethod(type: .card, card: testCard(number)), merchant: merchant), nil)
        }
        let (method, stored) = try await load(PaymentMethodRecord.self, id: id, merchant: merchant, parameter: parameter)
        return (method, stored)
    }

    /// The payment method a request gives inline (`payment_method_data`), and the object to
    /// store it as, written with the intent it is attached to (one write, not two); a failure
    /// names its parameter inside `payment_method_data[...]`.
    func inlinePaymentMethod(_ new: NewPaymentMethod, merchant: MerchantRecord) throws(GatewayFailure) -> (PaymentMethodRecord, StoredEvent) {
        do {
            let record = try makePaymentMethod(new)
            let object = try failingSync {
                StoredObject(id: record.id.rawValue, merchant: merchant.id, kind: .paymentMethod, created: record.created, body: Array(try Self.encoder.encode(record)))
            }
            return (record, StoredEvent(object: object, deliveries: []))
        } catch {
            var failure = error
            if var parameter = failure.parameter {
                // The card rules name a card's field alone (`number`), as Stripe's card errors do.
                if failure.category == .card, !parameter.contains("[") { parameter = "card[\(parameter)]" }
                let head = parameter.prefix { $0 != "[" }
                failure.parameter = "payment_method_data[\(head)]" + parameter.dropFirst(head.count)
            }
            throw failure
        }
    }

    /// The payment method a request names (`payment_method`) or gives inline
    /// (`payment_method_data`, not both), with the object an inline one is to be stored as;
    /// nil when it gives neither.
    func requestedMethod(_ id: PaymentMethodID?, _ data: NewPaymentMethod?, merchant: MerchantRecord) async throws -> (method: PaymentMethodRecord, unsaved: StoredEvent?)? {
        if let data {
            guard id == nil else { throw Self.bothMethods }
            let (inline, object) = try inlinePaymentMethod(data, merchant: merchant)
            return (inline, object)
        }
        guard let id else { return nil }
        return (try await paymentMethod(id, merchant: merchant, parameter: "payment_method").0, nil)
    }

    static let bothMethods = GatewayFailure.invalid("payment_method_data", "You may only specify one of these parameters: payment_method, payment_method_data.")

    /// The payment method `id`: `known` when it is that one, else read.
    func method(_ id: String, known: PaymentMethodRecord?, merchant: MerchantRecord) async throws -> PaymentMethodRecord {
        if let known, known.id.rawValue == id { return known }
        return try await load(PaymentMethodRecord.self, id: PaymentMethodID(id), merchant: merchant, parameter: "payment_method").0
    }

    /// Like ``failing(_:)``, for work that does not wait.
    func failingSync<T>(_ body: () throws -> T) throws(GatewayFailure) -> T {
        do { return try body() } catch let failure as GatewayFailure { throw failure } catch {
            throw GatewayFailure.internal(error, "The gateway could not finish this request; it can be retried with the same Idempotency-Key.")
        }
    }

    /// A card's month or year as an integer.
    /// - Throws: ``GatewayFailure`` naming `card[name]` for text that is not one.
    static func cardInteger(_ text: String, name: String) throws(GatewayFailure) -> Int {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ (48...57).contains($0) }), let value = Int(text) else {
            throw GatewayFailure.invalid("card[\(name)]", "Invalid integer: \(text.prefix(100))")
        }
        return value
    }

    /// Makes a customer (filed under its e-mail, for lists by e-mail), and saves the payment
    /// method it is given for it.
    package func createCustomer(_ new: NewCustomer, merchant: MerchantRecord) async throws(GatewayFailure) -> CustomerRecord {
        try await failing { () async throws -> CustomerRecord in
            guard new.metadata.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
            let id = CustomerID(newID("cus", length: 14))
            var customer = CustomerRecord(id: id, created: now(), email: new.email, name: new.name, description: new.description, metadata: new.metadata)
            customer.phone = new.phone
            // The method to save is checked first, so a customer is made whole or not at all.
            if let method = new.paymentMethod, TestPaymentMethods.cardNumber(paymentMethod: method.rawValue) == nil {
                let found = try await load(PaymentMethodRecord.self, id: method, merchant: merchant, parameter: "payment_method").0
                guard found.customer == nil else {
                    throw GatewayFailure.invalid("payment_method", "The payment method you provided is already attached to a customer; detach it first.", code: .paymentMethodUnexpectedState)
                }
            }
            try await insert(customer, id: id, merchant: merchant, customer: new.email)
            if let method = new.paymentMethod { _ = try await attachPaymentMethod(method, customer: id, merchant: merchant) }
            return customer
        }
    }

    /// One of the merchant's customers, or that it was deleted.
    /// - Throws: ``GatewayFailure`` `resource_missing` for an id it never had.
    package func customer(_ id: CustomerID, merchant: MerchantRecord) async throws(GatewayFailure) -> CustomerState {
        try await failing { () async throws -> CustomerState in
            if let found = try await find(CustomerRecord.self, id: id, merchant: merchant) { return .live(found) }
            guard id.rawValue.utf8.count <= 255, try await store.object(id: id.rawValue, kind: .deletedCustomer, merchant: merchant.id) != nil else {
                throw GatewayFailure.notFound("customer", id.rawValue)
            }
            return .deleted(id)
        }
    }

    /// Changes a customer.
    /// - Throws: ``GatewayFailure``: not found, more than 50 metadata keys, a default payment
    ///   method that is not one of its saved ones.
    package func updateCustomer(_ id: CustomerID, _ changes: CustomerChanges, merchant: MerchantRecord) async throws(GatewayFailure) -> CustomerRecord {
        try await failing { () async throws -> CustomerRecord in
            var (customer, stored) = try await load(CustomerRecord.self, id: id, merchant: merchant)
            func text(_ value: String?, _ field: inout String?) { if let value { field = value.isEmpty ? nil : value } }
            text(changes.email, &customer.email)
            text(changes.name, &customer.name)
            text(changes.description, &customer.description)
            text(changes.phone, &customer.phone)
            if let metadata = changes.metadata {
                for (key, value) in metadata { customer.metadata[key] = value }
                guard customer.metadata.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
            }
            if let method = changes.defaultPaymentMethod {
                if method.rawValue.isEmpty {
                    customer.defaultPaymentMethod = nil
                } else {
                    let saved = try await find(PaymentMethodRecord.self, id: method, merchant: merchant)
                    guard saved?.customer == id else {
                        throw GatewayFailure.invalid("invoice_settings[default_payment_method]", "The customer does not have a payment method with the ID \(method.rawValue.prefix(100)). The payment method must be attached to the customer.", code: .resourceMissing)
                    }
                    customer.defaultPaymentMethod = method
                }
            }
            _ = try await save(customer, over: stored, customer: .some(customer.email))
            return customer
        }
    }

    /// Deletes a customer: its saved payment methods are detached, and reading it afterwards
    /// says it was deleted.
    /// - Throws: ``GatewayFailure`` `resource_missing` for one it does not have (or no longer has).
    package func deleteCustomer(_ id: CustomerID, merchant: MerchantRecord) async throws(GatewayFailure) {
        try await failing { () async throws in
            let (_, stored) = try await load(CustomerRecord.self, id: id, merchant: merchant)
            while true {
                let saved = try await store.list(kind: .paymentMethod, merchant: merchant.id, ListRequest(limit: 100, customer: id.rawValue)).objects
                if saved.isEmpty { break }
                for object in saved {
                    var method = try records.decode(PaymentMethodRecord.self, object)
                    method.customer = nil
                    _ = try await save(method, over: object, customer: .some(nil))
                }
            }
            guard try await store.retire(stored, as: ObjectKind.deletedCustomer.rawValue) else { throw GatewayFailure.changedMeanwhile }
        }
    }

    /// A page of the merchant's customers, newest first; with `email`, only those with that
    /// e-mail address (compared exactly, as Stripe compares it).
    package func customers(merchant: MerchantRecord, page: ListRequest, email: String?) async throws(GatewayFailure) -> (records: [CustomerRecord], hasMore: Bool) {
        var page = page
        page.customer = email
        return try await list(CustomerRecord.self, merchant: merchant, page)
    }

    /// A page of a customer's saved payment methods, newest first, of one type or all.
    /// - Throws: ``GatewayFailure`` `resource_missing` for a customer the merchant does not have.
    package func paymentMethods(of customer: CustomerID, type: PaymentMethodType?, merchant: MerchantRecord, page: ListRequest) async throws(GatewayFailure) -> (records: [PaymentMethodRecord], hasMore: Bool) {
        _ = try await retrieve(CustomerRecord.self, id: customer, merchant: merchant)
        var page = page
        page.customer = customer.rawValue
        let listed = try await list(PaymentMethodRecord.self, merchant: merchant, page)
        return (listed.records.filter { type == nil || $0.type == type }, listed.hasMore)
    }

    /// Saves a payment method for a customer of the merchant's.
    /// - Throws: ``GatewayFailure``: an unknown customer or method, a method saved for another
    ///   customer already (`payment_method_unexpected_state`).
    package func attachPaymentMethod(_ id: PaymentMethodID, customer customerID: CustomerID, merchant: MerchantRecord) async throws(GatewayFailure) -> PaymentMethodRecord {
        try await failing { () async throws -> PaymentMethodRecord in
            _ = try await load(CustomerRecord.self, id: customerID, merchant: merchant, parameter: "customer")
            var (method, found) = try await paymentMethod(id, merchant: merchant, parameter: "id")
            let stored: StoredObject
            if let found { stored = found } else { stored = try await load(PaymentMethodRecord.self, id: method.id, merchant: merchant).1 }
            if let current = method.customer, current != customerID {
                throw GatewayFailure.invalid("customer", "The payment method you provided is already attached to a customer; detach it first.", code: .paymentMethodUnexpectedState)
            }
            method.customer = customerID
            _ = try await save(method, over: stored, customer: .some(customerID.rawValue))
            return method
        }
    }

    /// Forgets a saved payment method's customer.
    package func detachPaymentMethod(_ id: PaymentMethodID, merchant: MerchantRecord) async throws(GatewayFailure) -> PaymentMethodRecord {
        try await failing { () async throws -> PaymentMethodRecord in
            var (method, stored) = try await load(PaymentMethodRecord.self, id: id, merchant: merchant)
            guard method.customer != nil else {
                throw GatewayFailure.invalid(nil, "The payment method you provided is not attached to a customer so detachment is impossible.", code: .paymentMethodUnexpectedState)
            }
            let customer = method.customer
            method.customer = nil
            _ = try await save(method, over: stored, customer: .some(nil))
            // A customer's default method is forgotten with it.
            if let customer, let (record, storedCustomer) = try? await load(CustomerRecord.self, id: customer, merchant: merchant), record.defaultPaymentMethod == id {
                var changed = record
                changed.defaultPaymentMethod = nil
                _ = try await save(changed, over: storedCustomer)
            }
            return method
        }
    }

    /// Makes a webhook endpoint for `events` (`*` for all) and its signing secret, returned
    /// once (only its sealed form is kept). At most 16 per merchant.
    package func createWebhookEndpoint(
        url: String, events: [String], description: String? = nil, metadata: [String: String] = [:], merchant: MerchantRecord
    ) async throws(GatewayFailure) -> (endpoint: WebhookEndpointRecord, secret: String) {
        try await failing { () async throws -> (endpoint: WebhookEndpointRecord, secret: String) in
            _ = try Self.checkedURL(url, parameter: "url")
            try Self.checkEvents(events)
            let existing = try await store.list(kind: .webhookEndpoint, merchant: merchant.id, ListRequest(limit: 16))
            guard existing.objects.count < 16 else { throw GatewayFailure.invalid(nil, "A merchant may have at most 16 webhook endpoints.") }
            let secret = GatewayIDs.make("whsec", random: random, length: 32)
            let id = WebhookEndpointID(newID("we"))
            var endpoint = WebhookEndpointRecord(id: id, url: url, enabledEvents: events, created: now(), sealedSecret: try secrets.seal(Array(secret.utf8)))
            endpoint.description = description.flatMap { $0.isEmpty ? nil : $0 }
            guard metadata.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
            endpoint.metadata = metadata.isEmpty ? nil : metadata
            try await insert(endpoint, id: id, merchant: merchant)
            return (endpoint, secret)
        }
    }

    /// Changes a webhook endpoint: its URL, its events, its description, or whether it is
    /// disabled (nil leaves each as it is).
    /// - Throws: ``GatewayFailure``: not found, a URL that is not absolute http(s), an unknown event type.
    package func updateWebhookEndpoint(
        _ id: WebhookEndpointID, url: String?, events: [String]?, disabled: Bool?, description: String?, metadata: [String: String?]? = nil,
        merchant: MerchantRecord
    ) async throws(GatewayFailure) -> WebhookEndpointRecord {
        try await failing { () async throws -> WebhookEndpointRecord in
            var (endpoint, stored) = try await load(WebhookEndpointRecord.self, id: id, merchant: merchant)
            if let url { endpoint.url = try Self.checkedURL(url, parameter: "url") }
            if let events {
                try Self.checkEvents(events)
                endpoint.enabledEvents = events
            }
            if let disabled { endpoint.disabled = disabled ? true : nil }
            if let description { endpoint.description = description.isEmpty ? nil : description }
            if let metadata {
                var kept = endpoint.metadata ?? [:]
                for (key, value) in metadata { kept[key] = value }
                guard kept.count <= 50 else { throw GatewayFailure.invalid("metadata", "Metadata may have at most 50 keys.") }
                endpoint.metadata = kept.isEmpty ? nil : kept
            }
            _ = try await save(endpoint, over: stored)
            return endpoint
        }
    }

    /// Deletes a webhook endpoint: it is sent nothing more (its pending deliveries fail), and
    /// reading it afterwards finds nothing, as with Stripe.
    /// - Throws: ``GatewayFailure`` `resource_missing`.
    package func deleteWebhookEndpoint(_ id: WebhookEndpointID, merchant: MerchantRecord) async throws(GatewayFailure) {
        try await failing { () async throws in
            let (_, stored) = try await load(WebhookEndpointRecord.self, id: id, merchant: merchant)
            guard try await store.retire(stored, as: ObjectKind.deletedWebhookEndpoint.rawValue) else { throw GatewayFailure.changedMeanwhile }
        }
    }

    /// Event types an endpoint may ask for: 1 to 50, each one the gateway emits or `*`.
    static func checkEvents(_ events: [String]) throws(GatewayFailure) {
        guard !events.isEmpty, events.count <= 50 else { throw GatewayFailure.missing("enabled_events") }
        for event in events where event != "*" && GatewayEventType(rawValue: event) == nil {
            throw GatewayFailure.invalid("enabled_events", "Invalid event type: \(event.prefix(100)). Tender emits \(GatewayEventType.allCases.map(\.rawValue).joined(separator: ", ")), or * for all.")
        }
    }

    /// One of the merchant's records of its type's kind.
    /// - Throws: ``GatewayFailure`` `resource_missing` when the merchant has none with that id.
    package func retrieve<Record: StoredRecord>(_ type: Record.Type, id: RecordID<Record>, merchant: MerchantRecord) async throws(GatewayFailure) -> Record {
        try await failing { try await load(type, id: id, merchant: merchant).0 }
    }

    /// One of the merchant's records of its type's kind, or nil when it has none with that id.
    package func find<Record: StoredRecord>(_ type: Record.Type, id: RecordID<Record>, merchant: MerchantRecord) async throws(GatewayFailure) -> Record? {
        guard id.rawValue.utf8.count <= 255 else { return nil }
        return try await failing { () async throws -> Record? in
            guard let stored = try await store.object(id: id.rawValue, kind: Record.kind, merchant: merchant.id) else { return nil }
            return try records.decode(type, stored)
        }
    }

    /// A page of the merchant's records of its type's kind, newest first, and whether there are more.
    package func list<Record: StoredRecord>(_ type: Record.Type, merchant: MerchantRecord, _ page: ListRequest) async throws(GatewayFailure) -> (records: [Record], hasMore: Bool) {
        try await failing { () async throws -> (records: [Record], hasMore: Bool) in
            let (objects, hasMore) = try await store.list(kind: Record.kind, merchant: merchant.id, page)
            return (try objects.map { try records.decode(type, $0) }, hasMore)
        }
    }

    /// A page of the merchant's records of its type's kind that `admits` keeps, newest first:
    /// pages of the store read until this one is full (for what the store does not index).
    package func list<Record: StoredRecord>(
        _ type: Record.Type, merchant: MerchantRecord, _ page: ListRequest, where admits: @escaping (Record) -> Bool
    ) async throws(GatewayFailure) -> (records: [Record], hasMore: Bool) {
        try await failing { () async throws -> (records: [Record], hasMore: Bool) in
            var found: [Record] = []
            var request = page
            request.limit = 100
            let backwards = page.endingBefore != nil
            while true {
                let (objects, hasMore) = try await store.list(kind: Record.kind, merchant: merchant.id, request)
                let read = try objects.map { try records.decode(type, $0) }
                // Gathered away from the cursor: older ones forwards, newer ones backwards.
                found += (backwards ? read.reversed() : read).filter(admits)
                if found.count > page.limit || !hasMore || objects.isEmpty { break }
                if backwards { request.endingBefore = objects.first?.id } else { request.startingAfter = objects.last?.id }
            }
            let taken = Array(found.prefix(page.limit))
            return (backwards ? taken.reversed() : taken, found.count > page.limit)
        }
    }

    /// The merchant whose key this is, and which key it is; nil for a key nobody has.
    package func merchant(key: String) async throws(GatewayFailure) -> (MerchantRecord, KeyKind)? {
        guard key.utf8.count <= 255 else { return nil }
        return try await failing { try await store.merchant(keyHash: GatewayIDs.hash(key: key)) }
    }
}
