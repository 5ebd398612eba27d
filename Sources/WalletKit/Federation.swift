import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a SEP-2 federation server answers for a name.
public struct FederationRecord: Decodable, Sendable, Equatable {
    public let stellarAddress: String
    public let accountID: String
    public let memoType: String?
    public let memo: String?

    enum CodingKeys: String, CodingKey {
        case stellarAddress = "stellar_address", accountID = "account_id", memoType = "memo_type", memo
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        stellarAddress = try container.decode(String.self, forKey: .stellarAddress)
        accountID = try container.decode(String.self, forKey: .accountID)
        memoType = try container.decodeIfPresent(String.self, forKey: .memoType)
        // SEP-2 lets an id memo be a number or a string.
        if let text = try? container.decodeIfPresent(String.self, forKey: .memo) {
            memo = text
        } else {
            memo = try container.decodeIfPresent(UInt64.self, forKey: .memo).map(String.init)
        }
    }
}

public struct FederationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The domain's stellar.toml names no FEDERATION_SERVER, or cannot be read.
        case noServer = "federation_server_missing"
        /// The server does not know the name.
        case notFound = "federation_not_found"
        /// The server answered something that is not SEP-2.
        case invalidAnswer = "federation_answer_invalid"
    }

    public let code: Code
    public let description: String
}

/// SEP-2 federation: `jane*example.com` → the account its domain's federation server names. The
/// server is found in `https://example.com/.well-known/stellar.toml` (plain http for localhost,
/// as a local network serves it).
public struct FederationClient: Sendable {
    let transport: any HorizonTransport

    public init(transport: any HorizonTransport = URLSessionTransport()) {
        self.transport = transport
    }

    public func resolve(name: String, domain: String) async throws -> FederationRecord {
        let local = domain.lowercased().hasPrefix("localhost") || domain.hasPrefix("127.0.0.1")
        guard let toml = URL(string: "\(local ? "http" : "https")://\(domain)/.well-known/stellar.toml") else {
            throw FederationError(code: .noServer, description: "\(domain) is not a domain")
        }
        let (status, body) = try await transport.send(URLRequest(url: toml))
        guard status == 200, let server = Self.federationServer(in: String(decoding: body, as: UTF8.self)),
              var components = URLComponents(string: server) else {
            throw FederationError(code: .noServer, description: "\(domain) offers no FEDERATION_SERVER")
        }
        components.queryItems = [URLQueryItem(name: "q", value: "\(name)*\(domain)"), URLQueryItem(name: "type", value: "name")]
        guard let url = components.url else { throw FederationError(code: .noServer, description: "\(server) is not a URL") }
        let (answerStatus, answer) = try await transport.send(URLRequest(url: url))
        if answerStatus == 404 { throw FederationError(code: .notFound, description: "\(name)*\(domain) is not known to \(domain)") }
        guard answerStatus == 200, let record = try? JSONDecoder().decode(FederationRecord.self, from: answer) else {
            throw FederationError(code: .invalidAnswer, description: "\(server) answered \(answerStatus)")
        }
        return record
    }

    /// The FEDERATION_SERVER of a stellar.toml, a top-level key.
    static func federationServer(in toml: String) -> String? {
        for line in toml.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") { break }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == "FEDERATION_SERVER" { return parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        }
        return nil
    }
}
