import Foundation
import StellarBase
import TenderTesting
import Testing
import WalletKit

/// A clock the tests move by hand.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_800_000_000)

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(_ seconds: TimeInterval) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}

@Suite("Keystore")
struct KeystoreTests {
    /// Removed with everything in it when the test ends.
    let temporary = TemporaryDirectory("keystore")
    var directory: URL { URL(fileURLWithPath: temporary.path) }
    var url: URL { directory.appendingPathComponent("keystore.json") }

    func keystore(_ clock: TestClock = TestClock()) -> Keystore {
        Keystore(storage: FileKeystoreStorage(url: url), cost: .testing, now: { clock.now })
    }

    func expectError(_ code: KeystoreError.Code, _ message: String? = nil, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected \(code)")
        } catch let error as KeystoreError {
            #expect(error.code == code)
            if let message { #expect(error.message == message) }
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func newPINsAreSixDigitsTypedTwice() {
        expectError(.invalidPIN, "PIN must be exactly 6 digits") { try Keystore.validateNewPIN("12345", confirmation: "12345") }
        expectError(.invalidPIN, "PIN must be exactly 6 digits") { try Keystore.validateNewPIN("12345a", confirmation: "12345a") }
        expectError(.invalidPIN, "PIN must be exactly 6 digits") { try Keystore.validateNewPIN("١٢٣٤٥٦", confirmation: "١٢٣٤٥٦") }
        expectError(.pinMismatch, "PIN and confirmation do not match") { try Keystore.validateNewPIN("123456", confirmation: "123457") }
        #expect((try? Keystore.validateNewPIN("012345", confirmation: "012345")) != nil)
    }

    @Test func signUpThenSignInAndUnlock() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = keystore()
        let keyPair = KeyPair.random()
        #expect(!store.exists)
        try store.create(keyPair, pin: "482916")
        #expect(store.exists)
        // Sign-in needs no PIN: only the address.
        #expect(try store.address() == keyPair.accountID.strKey)
        let unlocked = try store.unlock(pin: "482916")
        #expect(unlocked.secretSeed == keyPair.secretSeed)
        expectError(.keystoreExists) { try store.create(KeyPair.random(), pin: "111111") }
    }

    @Test func theFileHoldsNoSecretInClearAndOnlyItsOwnerReadsIt() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPair = KeyPair.random()
        try keystore().create(keyPair, pin: "482916")
        let text = try String(contentsOf: url, encoding: .utf8)
        let seed = try #require(keyPair.seed)
        for secret in [keyPair.secretSeed!, Base64.encode(seed), Hex.encode(seed)] {
            #expect(!text.contains(secret))
        }
        #expect(text.contains(keyPair.accountID.strKey))
        #expect(text.contains("\"version\" : 1"))
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test func wrongPINsAreDetectedAndBackedOffAcrossRestarts() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let keyPair = KeyPair.random()
        try keystore(clock).create(keyPair, pin: "482916")
        for _ in 0..<2 {
            expectError(.incorrectPIN, "Incorrect PIN") { _ = try keystore(clock).unlock(pin: "000000") }
        }
        // The third wrong PIN locks the keystore for 30 s, and a new process sees the lock.
        expectError(.incorrectPIN) { _ = try keystore(clock).unlock(pin: "000000") }
        do {
            _ = try keystore(clock).unlock(pin: "482916")
            Issue.record("a locked keystore opened")
        } catch {
            #expect(error.code == .lockedOut)
            #expect(error.retryAfter == 30)
        }
        clock.advance(31)
        // A malformed PIN counts too; the next lock is twice as long.
        expectError(.invalidPIN) { _ = try keystore(clock).unlock(pin: "12") }
        do {
            _ = try keystore(clock).unlock(pin: "482916")
            Issue.record("a locked keystore opened")
        } catch {
            #expect(error.retryAfter == 60)
        }
        clock.advance(61)
        #expect(try keystore(clock).unlock(pin: "482916").accountID == keyPair.accountID)
        // Success clears the count: three more tries before the next lock.
        expectError(.incorrectPIN) { _ = try keystore(clock).unlock(pin: "000001") }
        #expect(try keystore(clock).unlock(pin: "482916").accountID == keyPair.accountID)
        #expect(Keystore.lockSeconds(afterFailures: 2) == 0)
        #expect(Keystore.lockSeconds(afterFailures: 50) == Keystore.longestLockSeconds)
    }

    @Test func importResetAndDamage() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = keystore()
        expectError(.invalidSeed) { try store.importSeed("SNOTASEED", pin: "123456") }
        let keyPair = KeyPair.random()
        try store.importSeed(keyPair.secretSeed!, pin: "123456")
        #expect(try store.address() == keyPair.accountID.strKey)
        // A file whose address was swapped for another does not open: the address is authenticated.
        var text = try String(contentsOf: url, encoding: .utf8)
        text = text.replacingOccurrences(of: keyPair.accountID.strKey, with: KeyPair.random().accountID.strKey)
        try text.write(to: url, atomically: true, encoding: .utf8)
        expectError(.incorrectPIN) { _ = try store.unlock(pin: "123456") }
        try Data("{not json".utf8).write(to: url)
        expectError(.corrupt) { _ = try store.unlock(pin: "123456") }
        try store.reset()
        #expect(!store.exists)
        expectError(.noKeystore) { _ = try store.address() }
    }
}
