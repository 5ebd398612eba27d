import Gateway

/// A charge as the merchant reads it: the attempt and the intent it belongs to (which holds
/// what was captured and refunded).
package struct ChargeView: Sendable {
    package let charge: ChargeAttempt
    package let intent: PaymentIntentRecord

    package var id: ChargeID { intent.id.charge(charge.number) }
}

/// Charges: kept in their intents (each attempt to pay one), read by their own ids and listed
/// newest first across the merchant's intents, as Stripe lists them.
extension GatewayService {
    /// One of the merchant's charges.
    /// - Throws: ``GatewayFailure`` `resource_missing` for an id naming no charge of its.
    package func charge(_ id: ChargeID, merchant: MerchantRecord) async throws(GatewayFailure) -> ChargeView {
        try await failing { () async throws -> ChargeView in
            let missing = GatewayFailure.notFound("charge", id.rawValue, parameter: "id")
            guard let attempt = id.attempt,
                  let stored = try await store.object(id: attempt.paymentIntent.rawValue, kind: .paymentIntent, merchant: merchant.id) else { throw missing }
            let intent = try records.decode(PaymentIntentRecord.self, stored)
            guard let charge = intent.chargeAttempts.first(where: { $0.number == attempt.number }) else { throw missing }
            return ChargeView(charge: charge, intent: intent)
        }
    }

    /// A page of the merchant's charges, newest first (an intent's later attempts before its
    /// earlier ones), of one intent or of all; `startingAfter` and `endingBefore` are charge ids.
    /// - Throws: ``GatewayFailure`` `resource_missing` for a cursor or intent naming nothing of the merchant's.
    package func charges(merchant: MerchantRecord, page: ListRequest, paymentIntent: PaymentIntentID?) async throws(GatewayFailure) -> (charges: [ChargeView], hasMore: Bool) {
        try await failing { () async throws -> (charges: [ChargeView], hasMore: Bool) in
            let cursorID = (page.startingAfter ?? page.endingBefore).map { ChargeID($0) }
            var cursor: (intent: PaymentIntentRecord, number: Int)?
            if let cursorID {
                let found = try await charge(cursorID, merchant: merchant)
                cursor = (found.intent, found.charge.number)
            }
            let newer = page.endingBefore != nil
            // Charges in the order they are gathered: away from the cursor (older ones for a
            // first page or `starting_after`, newer ones for `ending_before`).
            func ordered(_ intent: PaymentIntentRecord, after number: Int?) -> [ChargeView] {
                let views = intent.chargeAttempts.map { ChargeView(charge: $0, intent: intent) }
                guard let number else { return newer ? views : views.reversed() }
                return newer ? views.filter { $0.charge.number > number } : views.filter { $0.charge.number < number }.reversed()
            }
            var gathered: [ChargeView] = []
            var more = false
            if let paymentIntent {
                let intent = try await load(PaymentIntentRecord.self, id: paymentIntent, merchant: merchant, parameter: "payment_intent").0
                if let cursor, cursor.intent.id != intent.id {
                    throw GatewayFailure.invalid(page.startingAfter != nil ? "starting_after" : "ending_before", "The cursor is not a charge of \(paymentIntent.rawValue).")
                }
                gathered = ordered(intent, after: cursor?.number)
                more = gathered.count > page.limit
            } else {
                if let cursor { gathered = ordered(cursor.intent, after: cursor.number) }
                // Whole intents next, a page at a time, until the page is full or none are left.
                var last = cursor.map { $0.intent.id.rawValue }
                var exhausted = false
                while gathered.count <= page.limit, !exhausted {
                    var request = ListRequest(limit: 100)
                    if newer { request.endingBefore = last } else { request.startingAfter = last }
                    let (objects, hasMore) = try await store.list(kind: .paymentIntent, merchant: merchant.id, request)
                    let intents = try objects.map { try records.decode(PaymentIntentRecord.self, $0) }
                    // A page reads newest first; gathering newer charges walks it from its oldest.
                    for intent in newer ? intents.reversed() : intents { gathered += ordered(intent, after: nil) }
                    last = (newer ? intents.first : intents.last)?.id.rawValue
                    exhausted = !hasMore || last == nil
                }
                more = gathered.count > page.limit
            }
            let taken = Array(gathered.prefix(page.limit))
            return (newer ? taken.reversed() : taken, more)
        }
    }
}
