import StellarBase
import Synchronization

/// The hashes of one frozen generation of `transaction_hashes` (``HashGenerations``), as a
/// blocked Bloom filter: each hash sets 7 bits in one block of 512 (a 64-byte cache line), about
/// 10 bits a hash, so a hash the generation does not hold is refused by one block's read in all
/// but about 1% of cases, and a hash it holds is never refused.
///
/// A transaction hash is SHA-256, already uniform, so its own words place it: the first picks
/// the block, the second's seven 9-bit fields the bits.
public struct GenerationFilter: Sendable, Equatable {
    /// 8 words a block.
    private var words: [UInt64]
    private let blocks: UInt64

    static let bitsPerHash = 10
    static let bitsPerBlock = 512
    static let probes = 7

    /// A filter sized for `capacity` hashes.
    public init(capacity: Int) {
        let blocks = max(1, (max(capacity, 1) * Self.bitsPerHash + Self.bitsPerBlock - 1) / Self.bitsPerBlock)
        self.blocks = UInt64(blocks)
        words = Array(repeating: 0, count: blocks * 8)
    }

    public mutating func insert(_ hash: Bytes32) {
        insert(w0: hash.w0, w1: hash.w1)
    }

    /// Inserts the hash whose first 16 bytes are `bytes`' first 16 (a row's blob, read in place).
    public mutating func insert(firstBytesOf bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 16, "a transaction hash has 32 bytes")
        insert(w0: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
               w1: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
    }

    /// Inserts the hash whose first two words (``Bytes32/w0``, ``Bytes32/w1``) these are.
    public mutating func insert(w0: UInt64, w1: UInt64) {
        let base = Int(w0 % blocks) * 8
        var field = w1
        for _ in 0..<Self.probes {
            let bit = Int(field & 511)
            words[base + bit >> 6] |= 1 << UInt64(bit & 63)
            field >>= 9
        }
    }

    /// False only for a hash never inserted.
    public func mayContain(_ hash: Bytes32) -> Bool {
        let base = Int(hash.w0 % blocks) * 8
        var field = hash.w1
        for _ in 0..<Self.probes {
            let bit = Int(field & 511)
            if words[base + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
            field >>= 9
        }
        return true
    }

    /// The filter's bytes in memory.
    public var byteCount: Int { words.count * 8 }
}

/// A store's filters of the frozen generations of `transaction_hashes`, so that looking up a
/// hash searches only the newest generation and the older ones whose filter may hold it: at ten
/// million transactions a hash no transaction has (`POST /transactions_async`'s check for a
/// duplicate, `GET /transactions/{hash}` of an unknown one) took about 40 searches, each
/// reading a leaf of its own.
///
/// A generation below the newest never changes, so its filter, once built from its rows, holds
/// for as long as the store's database does. The filters live in memory only (about 1.25 bytes
/// a transaction) and are built in the background, one generation at a time, when a lookup
/// first finds frozen generations without one (``beginBuilding(below:filter:)``); until then
/// such a generation is searched, as it was before filters.
public final class HashFilters: Sendable {
    private struct State {
        var filters: [Int64: GenerationFilter] = [:]
        /// The last build begun and the generation it builds below; cleared when it fails.
        var build: (task: Task<Void, any Error>, below: Int64)?
    }

    private let state = Mutex(State())

    public init() {}

    /// The generations below `newest` to search for `hash`, newest first: each one without a
    /// filter, and each one whose filter may hold it.
    public func generations(toSearchFor hash: Bytes32, below newest: Int64) -> [Int64] {
        guard newest > 0 else { return [] }
        return state.withLock { state in
            stride(from: newest - 1, through: 0, by: -1).filter { state.filters[$0]?.mayContain(hash) ?? true }
        }
    }

    /// The generations whose filter refuses `hash` (each frozen when its filter was built), for
    /// a statement that searches every generation but those.
    public func generations(refusing hash: Bytes32) -> [Int64] {
        state.withLock { state in state.filters.compactMap { $0.value.mayContain(hash) ? nil : $0.key }.sorted() }
    }

    /// The generations that have a filter.
    public var filtered: Set<Int64> { state.withLock { Set($0.filters.keys) } }

    /// The filters' bytes in memory.
    public var byteCount: Int { state.withLock { $0.filters.values.reduce(0) { $0 + $1.byteCount } } }

    /// Begins building, in the background, a filter for each generation below `newest` that has
    /// none, newest first, one at a time (`filter` reads a generation's hashes into one), after
    /// any build begun before, and returns it; returns the build begun for `newest` or a newer
    /// generation instead (under way or done) when there is one, and nil when the filters cover
    /// every generation below `newest`. A build that throws keeps the filters it finished, and
    /// the next call begins another.
    @discardableResult
    public func beginBuilding(
        below newest: Int64, filter: @escaping @Sendable (Int64) async throws -> GenerationFilter
    ) -> Task<Void, any Error>? {
        state.withLock { state -> Task<Void, any Error>? in
            if let build = state.build, build.below >= newest { return build.task }
            guard (0..<max(newest, 0)).contains(where: { state.filters[$0] == nil }) else { return nil }
            let previous = state.build?.task
            let task = Task {
                _ = await previous?.result
                do {
                    for generation in stride(from: newest - 1, through: 0, by: -1) where self.state.withLock({ $0.filters[generation] == nil }) {
                        let built = try await filter(generation)
                        self.state.withLock { $0.filters[generation] = built }
                    }
                } catch {
                    self.state.withLock { state in
                        if state.build?.below == newest { state.build = nil }
                    }
                    throw error
                }
            }
            state.build = (task, newest)
            return task
        }
    }

    /// ``beginBuilding(below:filter:)``, then waits for that build (or the one under way).
    public func build(below newest: Int64, filter: @escaping @Sendable (Int64) async throws -> GenerationFilter) async throws {
        try await beginBuilding(below: newest, filter: filter)?.value
    }
}
