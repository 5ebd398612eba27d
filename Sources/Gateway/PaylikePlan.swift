/// One component of Paylike's payment `plan`: an amount due once (`scheduled`) or repeated from
/// `first` every `interval` (`count` times, or for ever in the last component). A plan records
/// what customer and merchant agreed; Paylike does not execute it, and neither does Tender.
public struct PaylikePlanComponent: Sendable, Equatable {
    public enum Unit: String, Sendable, CaseIterable { case day, week, month, year }

    public struct Repeat: Sendable, Equatable {
        /// Unix seconds; nil: now.
        public var first: Int64?
        public var count: Int?
        public var unit: Unit
        public var value: Int

        public init(first: Int64? = nil, count: Int? = nil, unit: Unit, value: Int = 1) {
            self.first = first
            self.count = count
            self.unit = unit
            self.value = value
        }
    }

    public var amount: PaymentAmount
    /// Unix seconds.
    public var scheduled: Int64?
    public var `repeat`: Repeat?

    public init(amount: PaymentAmount, scheduled: Int64? = nil, repeat: Repeat? = nil) {
        self.amount = amount
        self.scheduled = scheduled
        self.repeat = `repeat`
    }
}

public enum PaylikePlan {
    public static let maxComponents = 100

    /// Paylike's limitations on a plan (api-docs, payment plans): each component due once or
    /// repeated, not both; a count of at least 1, optional only in the last component; an
    /// interval of at least 1; a date given later than the one before (a first component without
    /// one starts now). Returns the field at fault (`plan.1.repeat.count`), or nil.
    public static func problem(_ plan: [PaylikePlanComponent], now: Int64) -> String? {
        guard (1...maxComponents).contains(plan.count) else { return "plan" }
        var previous: Int64?
        for (index, component) in plan.enumerated() {
            let field = "plan.\(index)"
            guard component.amount.value >= 0 else { return "\(field).amount" }
            switch (component.scheduled, component.repeat) {
            case (_?, nil):
                break
            case (nil, let repetition?):
                if let count = repetition.count, count < 1 { return "\(field).repeat.count" }
                if repetition.count == nil, index != plan.count - 1 { return "\(field).repeat.count" }
                guard repetition.value >= 1 else { return "\(field).repeat.interval.value" }
            default:
                return field
            }
            // A date given must come after the previous component's; one left out (a repetition's
            // first) follows on from the one before, or is now.
            if let start = component.scheduled ?? component.repeat?.first {
                if let previous, start <= previous { return component.scheduled != nil ? "\(field).scheduled" : "\(field).repeat.first" }
                previous = start
            } else if previous == nil {
                previous = now
            }
        }
        return nil
    }
}
