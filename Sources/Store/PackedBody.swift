import Gateway

/// How the gateway's store keeps an object's body on disk. Most objects are kept as their JSON;
/// events, written three to a card payment, kept for good and seldom read, are kept packed
/// against a fixed dictionary of events as Tender writes them: an event of 1.6 KB takes about a
/// tenth of that. Reading tells the two apart by the first byte (JSON begins with `{`), so
/// bodies written before events were packed read as they always did.
///
/// The packing is LZ77 against the dictionary (copies of earlier bytes, the dictionary's or the
/// event's own, between runs of literal bytes), without an entropy stage: an event is nearly
/// all copies of the dictionary, and what is left (ids, amounts, times) is random enough that
/// Huffman codes gain little. On the machine of docs/benchmarks.md, over 3,000 events of a
/// benchmark's card payments, zlib's deflate with the same dictionary made 158 bytes an event at
/// 26-38 µs each (C, any level); this makes 163-176 bytes at about 6 µs (perf in a card-payment
/// run), which matters at three events a payment.
public enum PackedBody {
    /// The first byte of a body packed against ``dictionary1``: followed by the JSON's length
    /// (LEB128), then literal runs and copies, each run's length and each copy's distance and
    /// length - 4 in LEB128 (see ``DictionaryPacking``).
    static let packedWithDictionary1: UInt8 = 0x01

    /// The kinds whose bodies are packed: events (and test events) only. An intent is read and
    /// rewritten at every step of its payment; unpacking it each time is not worth its bytes.
    public static let packedKinds: Set<String> = [ObjectKind.event.rawValue, ObjectKind.testEvent.rawValue]

    /// What a body of `kind` is kept as: packed for ``packedKinds`` (unless that would not make
    /// it smaller), as is otherwise.
    public static func pack(_ body: [UInt8], kind: String) -> [UInt8] {
        guard packedKinds.contains(kind), body.count > 1 else { return body }
        var packed: [UInt8] = [packedWithDictionary1]
        packing1.pack(body, into: &packed)
        // Kept as is only where it cannot be read as packed.
        return packed.count < body.count || body.first == packedWithDictionary1 ? packed : body
    }

    /// A body of `kind` as it was given to ``pack(_:kind:)``.
    /// - Throws: ``PackedBodyError`` for bytes no version of `pack` wrote.
    public static func unpack(_ stored: [UInt8], kind: String) throws(PackedBodyError) -> [UInt8] {
        guard packedKinds.contains(kind), let first = stored.first, first == packedWithDictionary1 else { return stored }
        return try packing1.unpack(stored, from: 1)
    }

    static let packing1 = DictionaryPacking(dictionary: dictionary1)

    /// The dictionary of format 1: three events as Tender writes them (a charge's and two of an
    /// intent's), with their ids and times cut down. Every packed body on every disk refers to
    /// these exact bytes: never change them (a better dictionary is a new format byte beside
    /// this one). A test pins their SHA-256.
    static let dictionary1: [UInt8] = Array("""
        {"id":"evt_","object":"event","api_version":"2024-06-20","created":1700000000,"data":{"object":{"id":"ch_","object":"charge","amount":1970,"amount_captured":1970,"amount_refunded":0,"application":null,"application_fee":null,"application_fee_amount":null,"authorization_code":null,"balance_transaction":"txn_","billing_details":{"address":null,"email":null,"name":null,"phone":null},"calculated_statement_descriptor":"TENDER","captured":true,"created":1700000000,"currency":"eur","customer":null,"description":null,"disputed":false,"failure_balance_transaction":null,"failure_code":null,"failure_message":null,"fraud_details":{},"level3":null,"livemode":false,"metadata":{},"on_behalf_of":null,"outcome":{"network_status":"approved_by_network","reason":null,"risk_level":"normal","risk_score":20,"seller_message":"Payment complete.","type":"authorized"},"paid":true,"payment_intent":"pi_","payment_method":"pm_","payment_method_details":{"type":"card","card":{"brand":"visa","last4":"4242","exp_month":12,"exp_year":2034,"country":"NL","fingerprint":"eeb10e7c55a0bdeb","funding":"credit","network":"visa","three_d_secure":null,"checks":{"cvc_check":"pass","address_line1_check":null,"address_postal_code_check":null}}},"presentment_details":null,"radar_options":null,"receipt_email":null,"receipt_number":null,"receipt_url":null,"refunded":false,"refunds":null,"review":null,"shipping":null,"source":null,"source_transfer":null,"statement_descriptor":null,"statement_descriptor_suffix":null,"status":"succeeded","transfer":null,"transfer_data":null,"transfer_group":null}},"livemode":false,"pending_webhooks":0,"request":{"id":null,"idempotency_key":null},"type":"charge.succeeded","account":null,"context":null}
        {"id":"evt_","object":"event","api_version":"2024-06-20","created":1700000000,"data":{"object":{"id":"pi_","object":"payment_intent","amount":1970,"amount_capturable":0,"amount_received":0,"canceled_at":null,"cancellation_reason":null,"capture_method":"automatic","client_secret":"pi__secret_","confirmation_method":"automatic","created":1700000000,"currency":"eur","customer":null,"description":null,"last_payment_error":null,"latest_charge":null,"livemode":false,"metadata":{},"next_action":null,"payment_method":"pm_","payment_method_types":["card"],"statement_descriptor":null,"status":"requires_confirmation","amount_refunded":0,"allowed_payment_method_types":null,"amount_details":{"tip":{}},"application":null,"application_fee_amount":null,"automatic_payment_methods":null,"customer_account":null,"excluded_payment_method_types":null,"hooks":null,"managed_payments":null,"on_behalf_of":null,"payment_details":null,"payment_method_configuration_details":null,"payment_method_options":null,"payment_record":null,"presentment_details":null,"processing":null,"receipt_email":null,"review":null,"setup_future_usage":null,"shipping":null,"source":null,"statement_descriptor_suffix":null,"transfer_data":null,"transfer_group":null}},"livemode":false,"pending_webhooks":0,"request":{"id":null,"idempotency_key":null},"type":"payment_intent.created","account":null,"context":null}
        {"id":"evt_","object":"event","api_version":"2024-06-20","created":1700000000,"data":{"object":{"id":"pi_","object":"payment_intent","amount":1970,"amount_capturable":0,"amount_received":1970,"canceled_at":null,"cancellation_reason":null,"capture_method":"automatic","client_secret":"pi__secret_","confirmation_method":"automatic","created":1700000000,"currency":"eur","customer":null,"description":null,"last_payment_error":null,"latest_charge":"ch_","livemode":false,"metadata":{},"next_action":null,"payment_method":"pm_","payment_method_types":["card"],"statement_descriptor":null,"status":"succeeded","amount_refunded":0,"allowed_payment_method_types":null,"amount_details":{"tip":{}},"application":null,"application_fee_amount":null,"automatic_payment_methods":null,"customer_account":null,"excluded_payment_method_types":null,"hooks":null,"managed_payments":null,"on_behalf_of":null,"payment_details":null,"payment_method_configuration_details":null,"payment_method_options":null,"payment_record":null,"presentment_details":null,"processing":null,"receipt_email":null,"review":null,"setup_future_usage":null,"shipping":null,"source":null,"statement_descriptor_suffix":null,"transfer_data":null,"transfer_group":null}},"livemode":false,"pending_webhooks":0,"request":{"id":null,"idempotency_key":null},"type":"payment_intent.succeeded","account":null,"context":null}
        """.utf8)
}

/// A stored body that does not unpack: the store's bytes were damaged or written by something
/// else.
public enum PackedBodyError: Error, Equatable {
    case malformed
}

/// LZ77 over a fixed dictionary: the bytes are packed as if they followed the dictionary, so a
/// copy can reach back into it. Greedy: at each position the longest match among the last 16
/// positions whose first four bytes hash alike, or the first of 32 bytes or more (an event's
/// copies run to hundreds of bytes, and looking for a longer one costs more than it saves).
struct DictionaryPacking: Sendable {
    let dictionary: [UInt8]
    /// For each hash of four bytes, the last dictionary position with it (-1: none)...
    private let head: [Int32]
    /// ...and for each dictionary position, the previous one with the same hash.
    private let previous: [Int32]

    static let hashBits = 12
    static let minimumMatch = 4
    static let chainLimit = 16
    static let goodEnough = 32
    static let largestBody = 1 << 26

    init(dictionary: [UInt8]) {
        self.dictionary = dictionary
        var head = [Int32](repeating: -1, count: 1 << Self.hashBits)
        var previous = [Int32](repeating: -1, count: dictionary.count)
        dictionary.withUnsafeBufferPointer { bytes in
            for position in 0..<max(0, dictionary.count - Self.minimumMatch + 1) {
                let hash = Self.hash(bytes, position)
                previous[position] = head[hash]
                head[hash] = Int32(position)
            }
        }
        self.head = head
        self.previous = previous
    }

    static func hash(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int) -> Int {
        let word = UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2]) << 16 | UInt32(bytes[position + 3]) << 24
        return Int((word &* 2_654_435_761) >> UInt32(32 - hashBits))
    }

    static func appendLEB128(_ value: Int, to out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    /// Appends `input`'s length and its runs and copies to `out`. Positions inside a copy are
    /// not indexed: an event's later copies come from the dictionary, and indexing them gained
    /// nothing (163.05 against 163.09 bytes an event) at a good part of the time.
    func pack(_ input: [UInt8], into out: inout [UInt8]) {
        let base = dictionary.count
        let count = input.count
        Self.appendLEB128(count, to: &out)
        var window = dictionary
        window.append(contentsOf: input)
        var head = self.head
        var previous = self.previous
        previous.append(contentsOf: repeatElement(-1, count: count))
        // The copies found, in order: where each begins in `input`, how far back it reaches, its length.
        var copies: [(index: Int, distance: Int, length: Int)] = []
        window.withUnsafeBufferPointer { bytes in
            head.withUnsafeMutableBufferPointer { head in
                previous.withUnsafeMutableBufferPointer { previous in
                    var index = 0
                    while index + Self.minimumMatch <= count {
                        let position = base + index
                        let hash = Self.hash(bytes, position)
                        let limit = count - index
                        var best = 0
                        var bestAt = 0
                        var candidate = Int(head[hash])
                        var steps = 0
                        while candidate >= 0, steps < Self.chainLimit {
                            var length = 0
                            while length < limit, bytes[candidate + length] == bytes[position + length] { length += 1 }
                            if length > best {
                                best = length
                                bestAt = candidate
                                if length == limit || length >= Self.goodEnough { break }
                            }
                            candidate = Int(previous[candidate])
                            steps += 1
                        }
                        previous[position] = head[hash]
                        head[hash] = Int32(position)
                        if best >= Self.minimumMatch {
                            copies.append((index, position - bestAt, best))
                            index += best
                        } else {
                            index += 1
                        }
                    }
                }
            }
        }
        var literalStart = 0
        for copy in copies {
            Self.appendLEB128(copy.index - literalStart, to: &out)
            out.append(contentsOf: input[literalStart..<copy.index])
            Self.appendLEB128(copy.distance, to: &out)
            Self.appendLEB128(copy.length - Self.minimumMatch, to: &out)
            literalStart = copy.index + copy.length
        }
        Self.appendLEB128(count - literalStart, to: &out)
        out.append(contentsOf: input[literalStart..<count])
    }

    /// The bytes `pack` was given, from `stored[start...]`.
    /// - Throws: ``PackedBodyError/malformed`` unless the runs and copies make exactly the
    ///   length they begin with, each copy reaching back no further than the dictionary's start.
    func unpack(_ stored: [UInt8], from start: Int) throws(PackedBodyError) -> [UInt8] {
        var index = start
        func number() throws(PackedBodyError) -> Int {
            var value = 0
            var shift = 0
            while true {
                guard index < stored.count, shift <= 28 else { throw .malformed }
                let byte = stored[index]
                index += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        let total = try number()
        // No body the gateway writes comes near 64 MiB; a damaged length must not ask for more.
        guard total > 0, total <= Self.largestBody else { throw .malformed }
        let base = dictionary.count
        var out: [UInt8] = []
        out.reserveCapacity(total)
        while true {
            let literals = try number()
            guard literals <= total - out.count, literals <= stored.count - index else { throw .malformed }
            out.append(contentsOf: stored[index..<(index + literals)])
            index += literals
            if out.count == total {
                guard index == stored.count else { throw .malformed }
                return out
            }
            let distance = try number()
            let length = try number() + Self.minimumMatch
            guard distance >= 1, distance <= base + out.count, length <= total - out.count else { throw .malformed }
            var from = base + out.count - distance
            for _ in 0..<length {
                out.append(from < base ? dictionary[from] : out[from - base])
                from += 1
            }
        }
    }
}
