import NIOCore
import Testing
@testable import tender

/// The load generator's reading of answers from a connection's bytes (``ResponseFraming``):
/// where an answer ends, its status, and what it refuses rather than misread.
@Suite struct ResponseFramingTests {
    func framing(_ text: String) throws -> (status: Int, length: Int)? {
        try ResponseFraming.response(in: ByteBuffer(string: text))
    }

    @Test func anAnswerEndsAfterItsContentLength() throws {
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\nServer: tender\r\n\r\n{\"a\":1}"
        let framed = try #require(try framing(answer))
        #expect(framed.status == 200)
        #expect(framed.length == answer.utf8.count)
        // The bytes of the next answer after it are not this one's.
        #expect(try framing(answer + "HTTP/1.1 404 Not Found\r\n")?.length == answer.utf8.count)
    }

    @Test func anAnswerNotYetWhollyArrivedIsWaitedFor() throws {
        let answer = "HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n{\"status\":4}"
        for cut in [0, 5, 12, 20, 40, answer.utf8.count - 1] {
            #expect(try framing(String(answer.utf8.prefix(cut))!) == nil, "cut at \(cut)")
        }
        #expect(try framing(answer)?.status == 400)
    }

    @Test func theHeaderNameIsReadInAnyCaseAndItsValueBetweenSpaces() throws {
        #expect(try framing("HTTP/1.1 201 Created\r\nCONTENT-LENGTH: \t2 \r\n\r\nok")?.length == 47)
        #expect(try framing("HTTP/1.1 204 No Content\r\nServer: tender\r\n\r\n")?.length == 43)
        #expect(try framing("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n")?.status == 200)
    }

    @Test func answersItCannotFrameAreRefused() throws {
        let refused = [
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "HTTP/1.1 200 OK\r\nServer: tender\r\n\r\nuntil the connection closes",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            "HTTP/1.1 200 OK\r\nContent-Length: five\r\n\r\nhello",
            "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
            "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n",
            "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
            "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
            "garbage\r\n\r\n",
        ]
        for text in refused {
            #expect(throws: ResponseFraming.Malformed.self, "\(text)") { try framing(text) }
        }
        // A head that never ends is refused once it is longer than any answer's.
        #expect(throws: ResponseFraming.Malformed.self) { try framing("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000)) }
    }

    @Test func requestsAreTheBytesNIOsEncoderWrote() {
        #expect(String(buffer: RequestStream.get("/accounts/G", host: "127.0.0.1:8000"))
            == "GET /accounts/G HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nContent-Length: 0\r\n\r\n")
        #expect(String(buffer: RequestStream.post("/transactions", host: "h:1", form: "tx=AA%3D", headers: [("Authorization", "Bearer k")]))
            == "POST /transactions HTTP/1.1\r\nHost: h:1\r\nAuthorization: Bearer k\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8\r\n\r\ntx=AA%3D")
    }
}
