import Foundation
import Hummingbird
import HummingbirdTesting
import Ledger
import StellarBase
import TenderTesting
import Testing
import TenderServer

@Suite("POST /transactions")
struct TransactionRoutesTests {
    let root = LedgerState.rootKeyPair(network: .standalone)

    /// Removed with everything in it when the test ends.
    let temporary = TemporaryDirectory("routes")

    func configuration(closeInterval: Duration = .zero, timeout: Duration = .seconds(30)) -> TenderConfiguration {
        let directory = temporary.file(UUID().uuidString)
        return TenderConfiguration(port: 0, dataDirectory: directory, closeInterval: closeInterval, submissionTimeout: timeout)
    }

    func form(_ envelope: TransactionEnvelope) -> ByteBuffer {
        ByteBuffer(string: "tx=" + envelope.xdrBase64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    func createAccount(sequence: Int64) -> TransactionEnvelope {
        let alice = try! KeyPair(seed: Array(repeating: 11, count: 32))
        return Transaction(sourceAccount: .ed25519(root.accountID), fee: 100, sequenceNumber: sequence,
                           operations: [StellarBase.Operation(.createAccount(CreateAccountOperation(destination: alice.accountID, startingBalance: 100 * Amount.stroopsPerUnit)))])
            .signed(by: [root], on: .standalone)
    }

    func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    @Test func appliedFailedMalformedAndMissing() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            // The root's first sequence number went to creating the test anchor's issuers.
            let created = createAccount(sequence: 2)
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: form(created)) { response in
                #expect(response.status == .ok)
                let body = try json(response.body)
                #expect(body["successful"] as? Bool == true)
                #expect(body["hash"] as? String == created.hash(on: .standalone).hex)
                #expect(body["fee_charged"] as? String == "100")
                #expect(body["source_account_sequence"] as? String == "2")
            }
            // Creating the same account again fails in the ledger: 400 with the codes.
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: form(createAccount(sequence: 3))) { response in
                #expect(response.status == .badRequest)
                #expect(response.headers[.contentType]?.hasPrefix("application/problem+json") == true)
                let body = try json(response.body)
                #expect(body["type"] as? String == "https://stellar.org/horizon-errors/transaction_failed")
                let extras = try #require(body["extras"] as? [String: Any])
                let codes = try #require(extras["result_codes"] as? [String: Any])
                #expect(codes["transaction"] as? String == "tx_failed")
                #expect(codes["operations"] as? [String] == ["op_already_exists"])
                #expect(extras["result_xdr"] as? String == "AAAAAAAAAGT/////AAAAAQAAAAAAAAAA/////AAAAAA=")
            }
            // The first envelope again: its stored result, not a second application.
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: form(created)) { response in
                #expect(response.status == .ok)
            }
            // A refused transaction: bad sequence, no operations codes, no `extras: null`.
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: form(createAccount(sequence: 9))) { response in
                #expect(response.status == .badRequest)
                let body = try json(response.body)
                let codes = try #require((body["extras"] as? [String: Any])?["result_codes"] as? [String: Any])
                #expect(codes["transaction"] as? String == "tx_bad_seq")
                #expect(codes["operations"] == nil)
            }
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: ByteBuffer(string: "tx=AAAA")) { response in
                #expect(response.status == .badRequest)
                let body = try json(response.body)
                #expect(body["type"] as? String == "https://stellar.org/horizon-errors/transaction_malformed")
            }
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: ByteBuffer(string: "nothing=here")) { response in
                #expect(response.status == .badRequest)
                let body = try json(response.body)
                #expect((body["extras"] as? [String: Any])?["invalid_field"] as? String == "tx")
            }
            let huge = ByteBuffer(string: "tx=" + String(repeating: "A", count: 300_000))
            try await client.execute(uri: "/transactions", method: .post, headers: headers, body: huge) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func multipartFormsAndEscapes() async throws {
        let app = try await buildApplication(configuration())
        try await app.test(.router) { client in
            // multipart/form-data, as some SDKs send it.
            let envelope = createAccount(sequence: 2)
            let boundary = "----tender\(UUID().uuidString)"
            let multipart = "--\(boundary)\r\nContent-Disposition: form-data; name=\"tx\"\r\n\r\n\(envelope.xdrBase64)\r\n--\(boundary)--\r\n"
            try await client.execute(
                uri: "/transactions", method: .post, headers: [.contentType: "multipart/form-data; boundary=\"\(boundary)\""],
                body: ByteBuffer(string: multipart)
            ) { response in
                #expect(response.status == .ok)
                let answer = try json(response.body)
                #expect(answer["hash"] as? String == envelope.hash(on: .standalone).hex)
            }
            // A broken multipart body or a bad escape is a missing field, never a crash.
            try await client.execute(
                uri: "/transactions", method: .post, headers: [.contentType: "multipart/form-data; boundary=x"], body: ByteBuffer(string: "garbage")
            ) { response in
                #expect(response.status == .badRequest)
                let answer = try json(response.body)
                #expect((answer["extras"] as? [String: Any])?["invalid_field"] as? String == "tx")
            }
            for body in ["tx=%ZZ", "tx=%4", "tx=%", "tx=%C3%28"] {
                try await client.execute(
                    uri: "/transactions", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: body)
                ) { response in
                    #expect(response.status == .badRequest, "\(body)")
                    let answer = try json(response.body)
                    #expect((answer["extras"] as? [String: Any])?["invalid_field"] as? String == "tx", "\(body)")
                }
            }
        }
    }

    @Test func aSlowLedgerAnswers504WithTheHash() async throws {
        // Ledgers close every minute here, so the submission outlasts its 50 ms timeout.
        let app = try await buildApplication(configuration(closeInterval: .seconds(60), timeout: .milliseconds(50)))
        try await app.test(.router) { client in
            let envelope = createAccount(sequence: 2)
            try await client.execute(
                uri: "/transactions", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: form(envelope)
            ) { response in
                #expect(response.status == .gatewayTimeout)
                let body = try json(response.body)
                #expect(body["type"] as? String == "https://stellar.org/horizon-errors/transaction_submission_timeout")
                #expect((body["extras"] as? [String: Any])?["hash"] as? String == envelope.hash(on: .standalone).hex)
            }
        }
    }
}
