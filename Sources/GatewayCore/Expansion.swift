import Gateway
import TenderJSON

/// Stripe's `expand[]`: ids in an answer replaced by the objects they name, on any path of up
/// to four fields (`latest_charge.balance_transaction`, `data.customer` in a list).
extension GatewayService {
    /// The most fields one expansion goes through, as Stripe allows.
    package static let maxExpansionDepth = 4

    /// The fields an expansion may go through: those that hold ids of objects (and `data`, a
    /// list's).
    package static let expandableFields: Set<String> = [
        "data", "latest_charge", "charge", "payment_intent", "payment_method", "customer", "balance_transaction", "default_payment_method",
        "invoice_settings", "refund", "payout", "source",
    ]

    /// Checks `paths` before a request does anything: each at most four known fields deep.
    /// - Throws: ``GatewayFailure`` naming `expand`.
    package static func checkExpansionPaths(_ paths: [String]) throws(GatewayFailure) {
        guard paths.count <= 20 else { throw GatewayFailure.invalid("expand", "Give at most 20 paths to expand.") }
        for path in paths {
            let fields = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !path.isEmpty, fields.count <= maxExpansionDepth else {
                throw GatewayFailure.invalid("expand", "You cannot expand more than \(maxExpansionDepth) levels of a property: \(path.prefix(200)).")
            }
            guard fields.allSatisfy(expandableFields.contains) else {
                throw GatewayFailure.invalid("expand", "This property cannot be expanded (\(path.prefix(200))).")
            }
        }
    }

    /// `value` with every path of `paths` expanded, for `merchant`.
    /// - Throws: ``GatewayFailure`` naming `expand` for a path that names no expandable field.
    package func expand(_ value: JSONValue, _ paths: [String], merchant: MerchantRecord, base: String) async throws(GatewayFailure) -> JSONValue {
        try Self.checkExpansionPaths(paths)
        var value = value
        for path in paths {
            let fields = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            value = try await failing { try await expand(value, fields[...], whole: path, merchant: merchant, base: base) }
        }
        return value
    }

    private func expand(_ value: JSONValue, _ fields: ArraySlice<String>, whole: String, merchant: MerchantRecord, base: String) async throws -> JSONValue {
        guard let field = fields.first else { return value }
        let cannot = GatewayFailure.invalid("expand", "This property cannot be expanded (\(whole.prefix(200))).")
        guard case .object(var pairs) = value else { throw cannot }
        guard let index = pairs.firstIndex(where: { $0.0 == field }) else { throw cannot }
        let rest = fields.dropFirst()
        switch pairs[index].1 {
        case .array(let items) where field == "data":
            var expanded: [JSONValue] = []
            for item in items { expanded.append(try await expand(item, rest, whole: whole, merchant: merchant, base: base)) }
            pairs[index].1 = .array(expanded)
        case .string(let id):
            pairs[index].1 = try await expand(try await object(named: id, merchant: merchant, base: base) ?? { throw cannot }(), rest, whole: whole, merchant: merchant, base: base)
        case .null:
            break
        case .object:
            // Expanded already by an earlier path, or an object holding ids (`invoice_settings`): go on inside it.
            pairs[index].1 = try await expand(pairs[index].1, rest, whole: whole, merchant: merchant, base: base)
        default:
            throw cannot
        }
        return .object(pairs)
    }

    /// The object an id names, as the API shows it; nil for an id of no expandable kind.
    private func object(named id: String, merchant: MerchantRecord, base: String) async throws -> JSONValue? {
        let prefix = id.prefix { $0 != "_" }
        switch prefix {
        case "ch":
            let found = try await charge(ChargeID(id), merchant: merchant)
            return GatewayObjects.charge(found.charge, of: found.intent)
        case "pi": return GatewayObjects.paymentIntent(try await load(PaymentIntentRecord.self, id: PaymentIntentID(id), merchant: merchant).0, base: base)
        case "pm": return GatewayObjects.paymentMethod(try await load(PaymentMethodRecord.self, id: PaymentMethodID(id), merchant: merchant).0)
        case "cus":
            switch try await customer(CustomerID(id), merchant: merchant) {
            case .live(let customer): return GatewayObjects.customer(customer)
            case .deleted: return GatewayObjects.deleted(id, object: "customer")
            }
        case "txn": return GatewayObjects.balanceTransaction(try await load(BalanceTransactionRecord.self, id: BalanceTransactionID(id), merchant: merchant).0)
        case "re": return GatewayObjects.refund(try await load(RefundRecord.self, id: RefundID(id), merchant: merchant).0)
        case "po": return GatewayObjects.payout(try await load(PayoutRecord.self, id: PayoutID(id), merchant: merchant).0)
        default: return nil
        }
    }
}
