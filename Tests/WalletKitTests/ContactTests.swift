import Foundation
import StellarBase
import TenderTesting
import Testing
import WalletKit

@Suite("Contacts")
struct ContactTests {
    /// Removed with everything in it when the test ends.
    let temporary = TemporaryDirectory("contacts")
    var url: URL { URL(fileURLWithPath: temporary.file("contacts.json")) }

    func expectError(_ code: ContactError.Code, _ message: String? = nil, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code)")
        } catch let error as ContactError {
            #expect(error.code == code)
            if let message { #expect(error.message == message) }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func theReferenceRules() async throws {
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let book = ContactBook(storage: FileKeystoreStorage(url: url))
        let jane = KeyPair.random().accountID.strKey
        let ghost = KeyPair.random().accountID.strKey
        let exists: (String) async throws -> Bool = { $0 != ghost }

        await expectError(.nameRequired, "Name is required") { try await book.add(name: "  ", address: jane, accountExists: exists) }
        await expectError(.addressRequired, "Address is required") { try await book.add(name: "Jane", address: "", accountExists: exists) }
        await expectError(.invalidAddress, "Invalid Stellar address") { try await book.add(name: "Jane", address: "GABC", accountExists: exists) }
        await expectError(.accountNotFound) { try await book.add(name: "Ghost", address: ghost, accountExists: exists) }

        let added = try await book.add(name: "Jane", address: jane, accountExists: exists)
        #expect(added.name == "Jane")
        await expectError(.duplicateName) { try await book.add(name: "jANE", address: KeyPair.random().accountID.strKey, accountExists: exists) }
        await expectError(.duplicateAddress) { try await book.add(name: "Janet", address: jane, accountExists: exists) }

        // Kept on disk, found by name or address.
        let reopened = ContactBook(storage: FileKeystoreStorage(url: url))
        #expect(try reopened.all() == [added])
        #expect(try reopened.find("jane") == added)
        #expect(try reopened.find(jane) == added)
        try reopened.remove("JANE")
        #expect(try reopened.all().isEmpty)
        await expectError(.notFound) { try reopened.remove("Jane") }
    }
}
