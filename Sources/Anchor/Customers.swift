import Foundation

/// SEP-12's customers as the test anchor knows them: the SEP-9 fields it asks of a natural
/// person, how their values are checked, and the status they give. Pure: the time is given.
public enum KYC {
    /// A SEP-9 field the anchor asks for.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let type: String
        public let description: String
        public let optional: Bool
        public let choices: [String]?
    }

    /// The natural person's fields (SEP-9 names), required first.
    public static let fields: [Field] = [
        Field(name: "first_name", type: "string", description: "Given or first name", optional: false, choices: nil),
        Field(name: "last_name", type: "string", description: "Family or last name", optional: false, choices: nil),
        Field(name: "email_address", type: "string", description: "E-mail address", optional: false, choices: nil),
        Field(name: "mobile_number", type: "string", description: "Mobile phone number in E.164 format", optional: true, choices: nil),
        Field(name: "birth_date", type: "date", description: "Date of birth, YYYY-MM-DD", optional: true, choices: nil),
        Field(name: "address", type: "string", description: "Full address on one line", optional: true, choices: nil),
        Field(name: "address_country_code", type: "string", description: "Country of the address, ISO 3166-1 alpha-3", optional: true, choices: nil),
        Field(name: "id_type", type: "string", description: "Kind of identity document", optional: true, choices: ["passport", "drivers_license", "id_card"]),
        Field(name: "id_number", type: "string", description: "Identity document's number", optional: true, choices: nil),
    ]

    public static let fieldNames = Set(fields.map(\.name))

    /// SEP-12's statuses of a customer.
    public enum Status: String, Sendable, Codable {
        case needsInfo = "NEEDS_INFO"
        case processing = "PROCESSING"
        case accepted = "ACCEPTED"
        case rejected = "REJECTED"
    }

    /// How long a review takes when one is asked for (an e-mail address with `+review`).
    public static let reviewSeconds: Int64 = 10

    /// A value of a field that is not acceptable, and why.
    public struct Invalid: Error, Equatable, Sendable {
        public let field: String
        public let message: String
    }

    /// Checks the values given (unknown names are refused, each value by its field's form).
    /// - Throws: ``Invalid`` for the first bad one.
    public static func check(_ values: [String: String]) throws(Invalid) {
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let field = fields.first(where: { $0.name == name }) else {
                throw Invalid(field: name, message: "\(name) is not a field this anchor asks for (\(fields.map(\.name).joined(separator: ", ")))")
            }
            guard !value.isEmpty, value.count <= 200 else { throw Invalid(field: name, message: "\(name) must be 1 to 200 characters") }
            if let choices = field.choices, !choices.contains(value) {
                throw Invalid(field: name, message: "\(name) is one of \(choices.joined(separator: ", "))")
            }
            switch name {
            case "email_address":
                let parts = value.split(separator: "@", omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !value.contains(" ") else {
                    throw Invalid(field: name, message: "email_address is an e-mail address such as jane@example.com")
                }
            case "birth_date":
                guard isDate(value) else { throw Invalid(field: name, message: "birth_date is a date written YYYY-MM-DD") }
            case "mobile_number":
                guard value.hasPrefix("+"), (8...16).contains(value.count), value.dropFirst().allSatisfy(\.isASCIIDigit) else {
                    throw Invalid(field: name, message: "mobile_number is written in E.164: + and 7 to 15 digits")
                }
            case "address_country_code":
                guard value.count == 3, value.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                    throw Invalid(field: name, message: "address_country_code is three capital letters (ISO 3166-1 alpha-3)")
                }
            default: break
            }
        }
    }

    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month), day >= 1 else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// The required fields not given yet.
    public static func missing(_ values: [String: String]) -> [Field] {
        fields.filter { !$0.optional && values[$0.name] == nil }
    }

    /// The customer's status at `now`: needs info while a required field is missing; then
    /// accepted, except the test anchor's rules: an e-mail address with `+reject` is rejected, one
    /// with `+review` is processing for ``reviewSeconds`` after the last change, then accepted.
    public static func status(_ values: [String: String], updated: Int64, now: Int64) -> Status {
        guard missing(values).isEmpty else { return .needsInfo }
        let email = values["email_address"]?.lowercased() ?? ""
        if email.contains("+reject@") { return .rejected }
        if email.contains("+review@"), now < updated + reviewSeconds { return .processing }
        return .accepted
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
