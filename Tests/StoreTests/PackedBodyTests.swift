import Crypto
import Foundation
@testable import Store
import TenderTesting
import Testing

/// Events are kept deflated against a fixed dictionary (issue 30: three events of 1.6 KB a card
/// payment were 63% of the gateway's file at a million card payments).
@Suite("The gateway store's packed bodies")
struct PackedBodyTests {
    /// A `payment_intent.succeeded` as the gateway writes it, with ids, amounts and times the
    /// dictionary does not hold.
    static let event = #"{"id":"evt_1xbK2mQ8rTn4LpZ0aVcW7yHs","object":"event","api_version":"2024-06-20","created":1801234567,"data":{"object":{"id":"pi_1xbK2m9fGhJk3LqW5eRt7YuI","object":"payment_intent","amount":4599,"amount_capturable":0,"amount_received":4599,"canceled_at":null,"cancellation_reason":null,"capture_method":"automatic","client_secret":"pi_1xbK2m9fGhJk3LqW5eRt7YuI_secret_Zx8Cv6Bn4Mm2Ll0Kk9Jj7Hh5","confirmation_method":"automatic","created":1801234560,"currency":"usd","customer":"cus_1xbK1aB2c3D4e5F6g7H8i9J0","description":"Order 1842 \u00e9t\u00e9 \u2615","last_payment_error":null,"latest_charge":"ch_1xbK2m9fGhJk3LqW5eRt7YuI","livemode":false,"metadata":{"order":"1842"},"next_action":null,"payment_method":"pm_1xbK2lPo9Iu8Yt7Re6Wq5As4","payment_method_types":["card"],"statement_descriptor":null,"status":"succeeded","amount_refunded":0,"allowed_payment_method_types":null,"amount_details":{"tip":{}},"application":null,"application_fee_amount":null,"automatic_payment_methods":null,"customer_account":null,"excluded_payment_method_types":null,"hooks":null,"managed_payments":null,"on_behalf_of":null,"payment_details":null,"payment_method_configuration_details":null,"payment_method_options":null,"payment_record":null,"presentment_details":null,"processing":null,"receipt_email":"jane@example.com","review":null,"setup_future_usage":null,"shipping":null,"source":null,"statement_descriptor_suffix":null,"transfer_data":null,"transfer_group":null}},"livemode":false,"pending_webhooks":2,"request":{"id":null,"idempotency_key":null},"type":"payment_intent.succeeded","account":null,"context":null}"#

    @Test func eventsComeBackAsTheyWereWritten() throws {
        let bodies: [[UInt8]] = [
            Array(Self.event.utf8),
            Array(#"{"name":"Café ☕ 日本","note":"\u0000 \"quoted\""}"#.utf8),
            Array(String(repeating: Self.event, count: 150).utf8),  // 250 KB: copies of itself
            Array(#"{"a":1}"#.utf8),
            Array("{}".utf8),
            [0x01, 0x02, 0x03],  // not JSON, but begins as a packed body does
        ]
        for body in bodies {
            for kind in ["event", "test_event"] {
                let packed = PackedBody.pack(body, kind: kind)
                #expect(packed.count <= body.count || body.first == 0x01)
                #expect(try PackedBody.unpack(packed, kind: kind) == body)
            }
        }
    }

    /// Events cut and spliced at random (pieces of real events, random bytes, repeats) come back
    /// byte for byte.
    @Test func randomBodiesComeBackAsTheyWere() throws {
        var random = SplitMix64(seed: 30)
        let source = Array(Self.event.utf8) + PackedBody.dictionary1
        for _ in 0..<3_000 {
            var body: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                switch Int.random(in: 0...2, using: &random) {
                case 0:
                    let start = Int.random(in: 0..<source.count, using: &random)
                    body += source[start..<min(source.count, start + Int.random(in: 1...600, using: &random))]
                case 1:
                    body += (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                default:
                    body += body.suffix(Int.random(in: 1...50, using: &random))
                }
            }
            let packed = PackedBody.pack(body, kind: "event")
            #expect(try PackedBody.unpack(packed, kind: "event") == body, "\(body.count) bytes")
        }
    }

    @Test func anEventTakesAFifthOfItsJSONOrLess() throws {
        let body = Array(Self.event.utf8)
        let packed = PackedBody.pack(body, kind: "event")
        #expect(packed.first == 0x01)
        #expect(packed.count * 5 <= body.count, "\(packed.count) bytes of \(body.count)")
    }

    @Test func onlyEventsArePacked() throws {
        let body = Array(Self.event.utf8)
        let packed = PackedBody.pack(body, kind: "event")
        for kind in ["payment_intent", "charge", "balance_transaction", "customer", "deleted_customer"] {
            #expect(PackedBody.pack(body, kind: kind) == body)
            // Another kind's body is never read as packed, whatever its first byte.
            #expect(try PackedBody.unpack(packed, kind: kind) == packed)
        }
        // A body too small to gain is kept as it is.
        #expect(PackedBody.pack(Array("{}".utf8), kind: "event") == Array("{}".utf8))
    }

    /// Every event written before packing is JSON, which begins with `{`: it reads as it is.
    @Test func jsonReadsAsItIs() throws {
        let body = Array(Self.event.utf8)
        #expect(try PackedBody.unpack(body, kind: "event") == body)
        #expect(try PackedBody.unpack([], kind: "event") == [])
    }

    @Test func damagedBodiesAreRefused() throws {
        let packed = PackedBody.pack(Array(Self.event.utf8), kind: "event")
        var longer = packed
        longer[1] &+= 1  // the length says one byte more than the runs and copies make
        var shorter = packed
        shorter[1] &-= 1
        let damaged: [[UInt8]] = [
            [0x01], [0x01, 0x80], [0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], [0x01, 0x00], [0x01, 0x05],
            [0x01, 0x03, 0x05, 0x61, 0x62, 0x63, 0x64, 0x65],  // a run longer than the body
            [0x01, 0x05, 0x00, 0x01, 0x06],  // a copy longer than the body
            [0x01, 0x0A, 0x00, 0xFF, 0x7F, 0x00],  // a copy from before the dictionary
            [0x01, 0x0A, 0x00, 0x00, 0x00],  // a copy from nowhere
            [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F],  // 4 GB asked for
            Array(packed.dropLast()), packed + [0], longer, shorter,
        ]
        for bytes in damaged {
            #expect(throws: PackedBodyError.malformed, "\(bytes.prefix(12))") { try PackedBody.unpack(bytes, kind: "event") }
        }
    }

    /// Every packed body on every disk refers to these bytes.
    @Test func theDictionaryNeverChanges() throws {
        #expect(PackedBody.dictionary1.count == 4_463)
        #expect(SHA256.hash(data: PackedBody.dictionary1).map { String(format: "%02x", $0) }.joined() == "b6ccc7d26996900b928ef9b581a8c361460675d5569fa6f0a6f0a3a8c27b7912")
    }
}
