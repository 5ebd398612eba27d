/// An asset code of up to 4 (``Asset/alphanum4``) or 12 (``Asset/alphanum12``) bytes, right-padded with zeros.
///
/// The raw bytes are kept exactly as decoded, so an envelope re-encodes byte for byte even when its
/// code is not valid; ``isValid`` tells whether the ledger would accept it.
public struct AssetCode: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The raw bytes, 4 or 12 of them.
    public let raw: [UInt8]

    init(raw: [UInt8]) { self.raw = raw }

    /// The code as text: the bytes before the first zero.
    public var text: String {
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }

    public var description: String { text }

    /// Whether the code is 1-4 (alphanum4) or 5-12 (alphanum12) characters of [A-Za-z0-9], then only zeros.
    public var isValid: Bool {
        let characters = raw.prefix(while: { $0 != 0 })
        guard raw.dropFirst(characters.count).allSatisfy({ $0 == 0 }) else { return false }
        guard characters.allSatisfy(AssetCode.isAllowed) else { return false }
        return raw.count == 4 ? (1...4).contains(characters.count) : (5...12).contains(characters.count)
    }

    public static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }

    public static func < (lhs: AssetCode, rhs: AssetCode) -> Bool { lhs.raw.lexicographicallyPrecedes(rhs.raw) }

    /// The count and the bytes eight to a word (a code is 4 or 12 bytes): the synthesized hash
    /// gave Hasher a byte at a time, and every trustline's key hashes its asset's code.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(raw.count)
        var word: UInt64 = 0
        for (index, byte) in raw.enumerated() {
            word = word << 8 | UInt64(byte)
            if index % 8 == 7 {
                hasher.combine(word)
                word = 0
            }
        }
        if raw.count % 8 != 0 { hasher.combine(word) }
    }
}

/// An asset: XLM (native) or an issued asset identified by code and issuer.
public enum Asset: Hashable, Sendable, CustomStringConvertible {
    case native
    case alphanum4(AssetCode, issuer: AccountID)
    case alphanum12(AssetCode, issuer: AccountID)

    /// An issued asset; 1-4 characters give alphanum4, 5-12 alphanum12.
    /// - Throws: ``AssetError`` when the code is empty, too long or has characters outside [A-Za-z0-9].
    public init(code: String, issuer: AccountID) throws(AssetError) {
        let bytes = Array(code.utf8)
        guard !bytes.isEmpty, bytes.count <= 12 else {
            throw AssetError("an asset code has 1 to 12 characters, \"\(code)\" has \(bytes.count)")
        }
        guard bytes.allSatisfy(AssetCode.isAllowed) else {
            throw AssetError("an asset code has only the letters A-Z, a-z and digits, \"\(code)\" has others")
        }
        if bytes.count <= 4 {
            self = .alphanum4(AssetCode(raw: bytes + Array(repeating: 0, count: 4 - bytes.count)), issuer: issuer)
        } else {
            self = .alphanum12(AssetCode(raw: bytes + Array(repeating: 0, count: 12 - bytes.count)), issuer: issuer)
        }
    }

    /// Parses `native`, `XLM` or `CODE:ISSUER`.
    /// - Throws: ``AssetError`` or ``StrKeyError`` for a bad code or issuer.
    public init(parsing text: String) throws {
        if text == "native" || text == "XLM" {
            self = .native
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw AssetError("an asset is written \"native\" or \"CODE:ISSUER\", not \"\(text)\"") }
        self = try Asset(code: String(parts[0]), issuer: try AccountID(String(parts[1])))
    }

    /// The asset code, or nil for XLM.
    public var code: AssetCode? {
        switch self {
        case .native: nil
        case .alphanum4(let code, _), .alphanum12(let code, _): code
        }
    }

    /// The issuer, or nil for XLM.
    public var issuer: AccountID? {
        switch self {
        case .native: nil
        case .alphanum4(_, let issuer), .alphanum12(_, let issuer): issuer
        }
    }

    /// Horizon's `asset_type`: `native`, `credit_alphanum4` or `credit_alphanum12`.
    public var typeName: String {
        switch self {
        case .native: "native"
        case .alphanum4: "credit_alphanum4"
        case .alphanum12: "credit_alphanum12"
        }
    }

    /// Whether the ledger would accept the asset (its code is well formed).
    public var isValid: Bool { code?.isValid ?? true }

    /// `native` or `CODE:ISSUER`, as Horizon writes assets in query strings.
    public var description: String {
        switch self {
        case .native: "native"
        case .alphanum4(let code, let issuer), .alphanum12(let code, let issuer): "\(code.text):\(issuer.strKey)"
        }
    }
}

/// Why an asset could not be made.
public struct AssetError: Error, Hashable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Asset: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("asset type")
        switch type {
        case 0: self = .native
        case 1:
            let code = AssetCode(raw: try reader.readFixedOpaque(4, "asset code"))
            self = .alphanum4(code, issuer: try AccountID(xdr: &reader))
        case 2:
            let code = AssetCode(raw: try reader.readFixedOpaque(12, "asset code"))
            self = .alphanum12(code, issuer: try AccountID(xdr: &reader))
        default:
            throw .unknown("AssetType", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .native:
            writer.write(Int32(0))
        case .alphanum4(let code, let issuer):
            writer.write(Int32(1))
            writer.writeFixedOpaque(code.raw)
            issuer.encode(to: &writer)
        case .alphanum12(let code, let issuer):
            writer.write(Int32(2))
            writer.writeFixedOpaque(code.raw)
            issuer.encode(to: &writer)
        }
    }
}

/// A liquidity pool's parameters (CAP-38): the constant-product pool of two assets, `assetA`
/// sorting before `assetB`, with its fee in basis points (30 since protocol 18).
public struct LiquidityPoolParameters: Hashable, Sendable {
    public var assetA: Asset
    public var assetB: Asset
    public var fee: Int32

    /// The only fee stellar-core allows.
    public static let fee: Int32 = 30

    public init(assetA: Asset, assetB: Asset, fee: Int32 = LiquidityPoolParameters.fee) {
        self.assetA = assetA
        self.assetB = assetB
        self.fee = fee
    }

    /// The pool of two assets, in their order.
    public init(_ x: Asset, _ y: Asset) {
        let (a, b) = x.xdrBytes.lexicographicallyPrecedes(y.xdrBytes) ? (x, y) : (y, x)
        self.init(assetA: a, assetB: b)
    }
}

extension LiquidityPoolParameters: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("liquidity pool type")
        guard type == 0 else { throw .unknown("LiquidityPoolType", Int64(type)) }
        self.init(assetA: try Asset(xdr: &reader), assetB: try Asset(xdr: &reader), fee: try reader.readInt32("fee"))
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(Int32(0))
        assetA.encode(to: &writer)
        assetB.encode(to: &writer)
        writer.write(fee)
    }
}

/// The asset of a ChangeTrust operation: a plain asset, or a liquidity pool's shares.
public enum ChangeTrustAsset: Hashable, Sendable {
    case asset(Asset)
    case poolShare(LiquidityPoolParameters)

    public init(_ asset: Asset) { self = .asset(asset) }

    /// The plain asset; nil for pool shares.
    public var asset: Asset? {
        if case .asset(let asset) = self { return asset }
        return nil
    }
}

extension ChangeTrustAsset: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        var peek = reader
        if try peek.readInt32("change trust asset type") == 3 {
            _ = try reader.readInt32("change trust asset type")
            self = .poolShare(try LiquidityPoolParameters(xdr: &reader))
        } else {
            self = .asset(try Asset(xdr: &reader))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .asset(let asset): asset.encode(to: &writer)
        case .poolShare(let parameters):
            writer.write(Int32(3))
            parameters.encode(to: &writer)
        }
    }
}

/// A price as a fraction `n / d` of two positive 32-bit integers.
public struct Price: Hashable, Sendable, CustomStringConvertible {
    public var n: Int32
    public var d: Int32

    public init(n: Int32, d: Int32) {
        self.n = n
        self.d = d
    }

    public var description: String { "\(n)/\(d)" }
}

extension Price: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        n = try reader.readInt32("price numerator")
        d = try reader.readInt32("price denominator")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(n)
        writer.write(d)
    }
}
