import Foundation
import StellarBase

/// A saved recipient.
public struct Contact: Codable, Sendable, Equatable, Identifiable {
    public let id: UUID
    public let name: String
    public let address: String
    /// Other names the contact goes by ("Mom", "Janey"): payments asked for in words find them
    /// by these too. Absent in files written before aliases existed.
    public let aliases: [String]

    public init(id: UUID = UUID(), name: String, address: String, aliases: [String] = []) {
        self.id = id
        self.name = name
        self.address = address
        self.aliases = aliases
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        address = try container.decode(String.self, forKey: .address)
        aliases = try container.decodeIfPresent([String].self, forKey: .aliases) ?? []
    }
}

/// Why a contact was refused. `code` is stable; `message` is what a person reads.
public struct ContactError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case nameRequired = "contact_name_required"
        case addressRequired = "contact_address_required"
        case invalidAddress = "contact_address_invalid"
        case duplicateName = "contact_name_taken"
        case duplicateAddress = "contact_address_taken"
        case accountNotFound = "contact_account_not_found"
        case notFound = "contact_not_found"
        case storage = "contacts_storage"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The wallet's contacts, with the reference app's rules: name and address required, no two
/// contacts with the same name (ignoring case) or address, the address a valid `G...` key of an
/// account that exists. Kept as a JSON array in any ``KeystoreStorage`` (a file on Linux).
public final class ContactBook: @unchecked Sendable {
    private let storage: any KeystoreStorage
    private let lock = NSLock()

    public init(storage: any KeystoreStorage) {
        self.storage = storage
    }

    /// Every contact, in the order added.
    /// - Throws: ``ContactError`` `contacts_storage` when the file cannot be read.
    public func all() throws(ContactError) -> [Contact] {
        lock.lock()
        defer { lock.unlock() }
        return try load()
    }

    /// The contact with this name (ignoring case) or address.
    public func find(_ nameOrAddress: String) throws(ContactError) -> Contact? {
        let key = nameOrAddress.trimmingCharacters(in: .whitespaces)
        return try all().first { $0.address == key || $0.name.caseInsensitiveCompare(key) == .orderedSame }
    }

    /// Adds a contact once the rules pass; `accountExists` asks the network about the address.
    /// - Throws: ``ContactError`` naming the rule that failed.
    @discardableResult
    public func add(name rawName: String, address rawAddress: String, aliases rawAliases: [String] = [], accountExists: (String) async throws -> Bool) async throws -> Contact {
        let aliases = rawAliases.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard !aliases.contains(where: \.isEmpty) else { throw ContactError(.nameRequired, "An alias cannot be empty") }
        let name = rawName.trimmingCharacters(in: .whitespacesAndNewlines)
        let address = rawAddress.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw ContactError(.nameRequired, "Name is required") }
        guard !address.isEmpty else { throw ContactError(.addressRequired, "Address is required") }
        guard (try? AccountID(address)) != nil else { throw ContactError(.invalidAddress, "Invalid Stellar address") }
        try checkUnique(name: name, address: address)
        guard try await accountExists(address) else {
            throw ContactError(.accountNotFound, "No account exists at \(address)")
        }
        return try insert(Contact(name: name, address: address, aliases: aliases))
    }

    private func insert(_ contact: Contact) throws(ContactError) -> Contact {
        lock.lock()
        defer { lock.unlock() }
        var contacts = try load()
        // Checked again under the lock: another add may have come in meanwhile.
        if contacts.contains(where: { $0.name.caseInsensitiveCompare(contact.name) == .orderedSame }) {
            throw ContactError(.duplicateName, "A contact named \(contact.name) already exists")
        }
        if contacts.contains(where: { $0.address == contact.address }) {
            throw ContactError(.duplicateAddress, "This address is already a contact")
        }
        contacts.append(contact)
        try save(contacts)
        return contact
    }

    /// Removes the contact with this name (ignoring case) or address.
    /// - Throws: ``ContactError`` `contact_not_found`.
    public func remove(_ nameOrAddress: String) throws(ContactError) {
        lock.lock()
        defer { lock.unlock() }
        var contacts = try load()
        let key = nameOrAddress.trimmingCharacters(in: .whitespaces)
        guard let index = contacts.firstIndex(where: { $0.address == key || $0.name.caseInsensitiveCompare(key) == .orderedSame }) else {
            throw ContactError(.notFound, "No contact \(key)")
        }
        contacts.remove(at: index)
        try save(contacts)
    }

    /// Deletes every contact.
    public func reset() throws(ContactError) {
        do {
            try storage.delete()
        } catch {
            throw ContactError(.storage, "cannot delete the contacts: \(error)")
        }
    }

    private func checkUnique(name: String, address: String) throws(ContactError) {
        let contacts = try all()
        if contacts.contains(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame }) {
            throw ContactError(.duplicateName, "A contact named \(name) already exists")
        }
        if contacts.contains(where: { $0.address == address }) {
            throw ContactError(.duplicateAddress, "This address is already a contact")
        }
    }

    private func load() throws(ContactError) -> [Contact] {
        do {
            guard let data = try storage.load() else { return [] }
            return try JSONDecoder().decode([Contact].self, from: data)
        } catch {
            throw ContactError(.storage, "cannot read the contacts: \(error)")
        }
    }

    private func save(_ contacts: [Contact]) throws(ContactError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try storage.save(try encoder.encode(contacts))
        } catch {
            throw ContactError(.storage, "cannot write the contacts: \(error)")
        }
    }
}
