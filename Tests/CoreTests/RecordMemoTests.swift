import Foundation
import Gateway
import GatewayCore
import Synchronization
import Testing

/// Counts its decodings.
struct CountedRecord: Decodable, Sendable, Equatable {
    static let decodings = Mutex(0)
    let n: Int

    init(from decoder: any Decoder) throws {
        enum Keys: String, CodingKey { case n }
        n = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .n)
        Self.decodings.withLock { $0 += 1 }
    }
}

struct OtherRecord: Decodable, Sendable {
    let n: Int
}

@Suite("Records decoded once per body", .serialized)
struct RecordMemoTests {
    static func stored(_ id: String, _ json: String, version: Int64 = 0) -> StoredObject {
        StoredObject(id: id, merchant: "acct_1", kind: "thing", created: 1, version: version, body: Array(json.utf8))
    }

    @Test func aBodyIsDecodedOnceAndAChangedBodyAgain() throws {
        let memo = RecordMemo()
        let before = CountedRecord.decodings.withLock { $0 }
        let first = Self.stored("x_1", #"{"n":1}"#)
        #expect(try memo.decode(CountedRecord.self, first).n == 1)
        #expect(try memo.decode(CountedRecord.self, first).n == 1)
        // An equal body in other storage (as read again from the database).
        #expect(try memo.decode(CountedRecord.self, Self.stored("x_1", #"{"n":1}"#)).n == 1)
        #expect(CountedRecord.decodings.withLock { $0 } == before + 1)
        // The same id and version with another body (a record changed in hand): decoded again.
        #expect(try memo.decode(CountedRecord.self, Self.stored("x_1", #"{"n":2}"#)).n == 2)
        #expect(CountedRecord.decodings.withLock { $0 } == before + 2)
        // Another type of the same object is its own entry.
        #expect(try memo.decode(OtherRecord.self, Self.stored("x_1", #"{"n":2}"#)).n == 2)
        #expect(try memo.decode(CountedRecord.self, Self.stored("x_1", #"{"n":2}"#)).n == 2)
        #expect(CountedRecord.decodings.withLock { $0 } == before + 2)
        // A body that does not decode throws, every time.
        for _ in 0..<2 { #expect(throws: DecodingError.self) { try memo.decode(CountedRecord.self, Self.stored("x_2", #"{"n":"one"}"#)) } }
    }

    @Test func aFullMemoIsEmptied() throws {
        let memo = RecordMemo(limit: 3)
        for round in 0..<3 {
            for n in 0..<10 {
                #expect(try memo.decode(CountedRecord.self, Self.stored("x_\(n)", "{\"n\":\(n * 10 + round)}")).n == n * 10 + round)
            }
        }
    }
}
