import Foundation
import Intents

/// Payments sent and asked for in words, newest first; the last 50 are kept (as Apple's sample
/// keeps its history). Stored as JSON through a ``KeystoreStorage`` (a 0600 file beside the
/// keystore).
public final class PaymentHistory: @unchecked Sendable {
    public struct Entry: Sendable, Equatable {
        public enum Kind: String, Sendable, Codable { case sent, requested }
        public var kind: Kind
        public var record: PaymentRecord
        /// The ledger transaction's hash (sent) or the SEP-7 URI (requested).
        public var reference: String
        public var date: Date

        public init(kind: Kind, record: PaymentRecord, reference: String, date: Date) {
            self.kind = kind
            self.record = record
            self.reference = reference
            self.date = date
        }
    }

    public static let capacity = 50

    private let storage: any KeystoreStorage
    private let lock = NSLock()

    public init(storage: any KeystoreStorage) {
        self.storage = storage
    }

    /// Newest first.
    public func all() throws -> [Entry] {
        try lock.withLock { try load() }
    }

    /// The last payment sent, which resolution offers when a parameter is missing.
    public func lastSent() throws -> PaymentRecord? {
        try all().first { $0.kind == .sent }?.record
    }

    /// Adds an entry first and drops what is past ``capacity``.
    public func append(_ entry: Entry) throws {
        try lock.withLock {
            var entries = try load()
            entries.insert(entry, at: 0)
            if entries.count > Self.capacity { entries.removeLast(entries.count - Self.capacity) }
            try storage.save(try JSONEncoder().encode(entries.map(StoredEntry.init)))
        }
    }

    private func load() throws -> [Entry] {
        guard let data = try storage.load() else { return [] }
        return try JSONDecoder().decode([StoredEntry].self, from: data).map(\.entry)
    }

    /// The file's shape (version 1): one object per entry, amounts as minor units.
    private struct StoredEntry: Codable {
        struct StoredPerson: Codable {
            var name: String
            var handle: String
        }
        var kind: Entry.Kind
        var person: StoredPerson?
        var minorUnits: Int64
        var currency: String
        var exponent: Int
        var note: String?
        var status: Int
        var feeStroops: Int64?
        var reference: String
        var date: Date

        init(_ entry: Entry) {
            kind = entry.kind
            let person = entry.kind == .sent ? entry.record.payee : entry.record.payer
            self.person = person.map { StoredPerson(name: $0.displayName, handle: $0.handle) }
            minorUnits = entry.record.amount.minorUnits
            currency = entry.record.amount.currency
            exponent = entry.record.amount.exponent
            note = entry.record.note
            status = entry.record.status.rawValue
            feeStroops = entry.record.fee?.minorUnits
            reference = entry.reference
            date = entry.date
        }

        var entry: Entry {
            let person = self.person.map { Person(displayName: $0.name, handle: $0.handle) }
            let record = PaymentRecord(
                payee: kind == .sent ? person : nil, payer: kind == .requested ? person : nil,
                amount: CurrencyAmount(minorUnits: minorUnits, currency: currency, exponent: exponent), note: note,
                status: PaymentStatus(rawValue: status) ?? .unknown,
                fee: feeStroops.map { CurrencyAmount(minorUnits: $0, currency: "XLM", exponent: 7) })
            return Entry(kind: kind, record: record, reference: reference, date: date)
        }
    }
}
