import Anchor
import Testing

@Suite("SEP-12 customers' rules")
struct KYCTests {
    let complete = ["first_name": "Jane", "last_name": "Doe", "email_address": "jane@example.com"]

    @Test func statusFollowsTheFieldsAndTheTestRules() {
        #expect(KYC.status([:], updated: 0, now: 0) == .needsInfo)
        #expect(KYC.missing(["first_name": "Jane"]).map(\.name) == ["last_name", "email_address"])
        #expect(KYC.status(complete, updated: 0, now: 0) == .accepted)
        var rejected = complete
        rejected["email_address"] = "jane+reject@example.com"
        #expect(KYC.status(rejected, updated: 0, now: 100) == .rejected)
        var review = complete
        review["email_address"] = "jane+review@example.com"
        #expect(KYC.status(review, updated: 100, now: 109) == .processing)
        #expect(KYC.status(review, updated: 100, now: 110) == .accepted)
    }

    @Test func valuesAreCheckedByTheirForm() {
        func field(_ values: [String: String]) -> String? {
            do { try KYC.check(values); return nil } catch { return error.field }
        }
        #expect(field(complete.merging(["mobile_number": "+31612345678", "birth_date": "2000-02-29", "id_type": "passport", "address_country_code": "NLD"]) { $1 }) == nil)
        #expect(field(["favourite_colour": "blue"]) == "favourite_colour")
        #expect(field(["email_address": "jane"]) == "email_address")
        #expect(field(["email_address": "ja ne@example.com"]) == "email_address")
        #expect(field(["birth_date": "2001-02-29"]) == "birth_date")
        #expect(field(["birth_date": "2001-13-01"]) == "birth_date")
        #expect(field(["mobile_number": "0612345678"]) == "mobile_number")
        #expect(field(["id_type": "library_card"]) == "id_type")
        #expect(field(["address_country_code": "nl"]) == "address_country_code")
        #expect(field(["first_name": ""]) == "first_name")
        #expect(field(["first_name": String(repeating: "a", count: 201)]) == "first_name")
    }
}
