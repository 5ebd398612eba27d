import Testing
@testable import TenderServer

@Suite("Bearer tokens read from the Authorization header")
struct BearerTokenTests {
    @Test(arguments: [
        ("Bearer abc", "abc"), ("Bearer   abc \t", "abc"), ("Bearer \tsk_test_x", "sk_test_x"), ("Bearer ", ""), ("Bearer", nil),
        ("bearer abc", nil), ("Basic abc", nil), ("", nil), ("Bearer a b", "a b"), ("Bearer é", "é"),
    ] as [(String, String?)])
    func token(_ header: String, _ expected: String?) {
        #expect(bearerToken(header) == expected)
    }
}
