import Gateway
import Foundation
import Synchronization

/// Records decoded from stored objects' JSON, kept by object id and type for as long as the
/// body they came from is the one presented: a hot object is decoded once, not on every read
/// (decoding was two fifths of the checkout screen's CPU). Any change of body decodes again,
/// so the memo can never answer a record the body does not say. Bounded: emptied when full.
public final class RecordMemo: Sendable {
    private struct Key: Hashable {
        let id: String
        let type: ObjectIdentifier
    }

    private struct Entry {
        let body: [UInt8]
        let record: any Sendable
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let limit: Int

    public init(limit: Int = 50_000) {
        self.limit = limit
    }

    /// `stored`'s body as a `Record`, decoded once per body.
    public func decode<Record: Decodable & Sendable>(_ type: Record.Type, _ stored: StoredObject) throws -> Record {
        let key = Key(id: stored.id, type: ObjectIdentifier(type))
        // Equal bodies from the store's cache share their storage, so the comparison is one check.
        if let kept = entries.withLock({ entries -> Record? in
            guard let entry = entries[key], entry.body == stored.body else { return nil }
            return entry.record as? Record
        }) {
            return kept
        }
        let record = try JSONDecoder().decode(Record.self, from: Data(stored.body))
        entries.withLock { entries in
            if entries.count >= limit { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(body: stored.body, record: record)
        }
        return record
    }
}
