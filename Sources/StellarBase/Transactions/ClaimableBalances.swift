/// When a claimant may claim a claimable balance (CAP-23).
public indirect enum ClaimPredicate: Hashable, Sendable {
    case unconditional
    /// Both must hold (the ledger requires exactly two).
    case and([ClaimPredicate])
    /// Either must hold (the ledger requires exactly two).
    case or([ClaimPredicate])
    /// Must not hold (the ledger requires one).
    case not(ClaimPredicate?)
    /// Before this many seconds since 1970.
    case beforeAbsoluteTime(Int64)
    /// Before this many seconds after the balance was created (made absolute when it is).
    case beforeRelativeTime(Int64)

    /// Nesting deeper than this is refused when decoding (the ledger accepts 4 levels).
    static let maxDecodingDepth = 8

    init(xdr reader: inout XDRReader, depth: Int) throws(XDRError) {
        guard depth <= Self.maxDecodingDepth else { throw XDRError(.lengthOutOfBounds, "a claim predicate nests more than \(Self.maxDecodingDepth) levels") }
        let type = try reader.readInt32("claim predicate type")
        switch type {
        case 0: self = .unconditional
        case 1, 2:
            let count = try reader.readUInt32("claim predicates count")
            guard count <= 2 else { throw XDRError(.lengthOutOfBounds, "a claim predicate combines at most 2 predicates, not \(count)") }
            var predicates: [ClaimPredicate] = []
            for _ in 0..<count { predicates.append(try ClaimPredicate(xdr: &reader, depth: depth + 1)) }
            self = type == 1 ? .and(predicates) : .or(predicates)
        case 3:
            self = .not(try reader.readBool("not predicate flag") ? try ClaimPredicate(xdr: &reader, depth: depth + 1) : nil)
        case 4: self = .beforeAbsoluteTime(try reader.readInt64("absBefore"))
        case 5: self = .beforeRelativeTime(try reader.readInt64("relBefore"))
        default: throw .unknown("ClaimPredicateType", Int64(type))
        }
    }
}

extension ClaimPredicate: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        try self.init(xdr: &reader, depth: 1)
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .unconditional: writer.write(Int32(0))
        case .and(let predicates):
            writer.write(Int32(1))
            writer.writeArray(predicates)
        case .or(let predicates):
            writer.write(Int32(2))
            writer.writeArray(predicates)
        case .not(let predicate):
            writer.write(Int32(3))
            writer.writeOptional(predicate)
        case .beforeAbsoluteTime(let time):
            writer.write(Int32(4))
            writer.write(time)
        case .beforeRelativeTime(let seconds):
            writer.write(Int32(5))
            writer.write(seconds)
        }
    }
}

/// Who may claim a claimable balance, and when.
public struct Claimant: Hashable, Sendable {
    public var destination: AccountID
    public var predicate: ClaimPredicate

    public init(destination: AccountID, predicate: ClaimPredicate = .unconditional) {
        self.destination = destination
        self.predicate = predicate
    }
}

extension Claimant: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("claimant type")
        guard type == 0 else { throw .unknown("ClaimantType", Int64(type)) }
        self.init(destination: try AccountID(xdr: &reader), predicate: try ClaimPredicate(xdr: &reader))
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(Int32(0))
        destination.encode(to: &writer)
        predicate.encode(to: &writer)
    }
}

/// A claimable balance's id: the hash of the operation that created it (`ClaimableBalanceID`
/// of type 0). Horizon writes it as the XDR in hex: `00000000` then the hash.
public struct ClaimableBalanceID: Hashable, Sendable, CustomStringConvertible {
    public var hash: Bytes32

    public init(_ hash: Bytes32) { self.hash = hash }

    /// Horizon's form: the XDR in hex.
    public var hex: String { "00000000" + hash.hex }
    public var description: String { hex }

    /// `00000000` and 64 hexadecimal digits; nil for anything else.
    public init?(hex text: String) {
        guard text.utf8.count == 72, text.hasPrefix("00000000"), let bytes = Hex.decode(String(text.dropFirst(8))) else { return nil }
        hash = Bytes32(bytes)
    }
}

extension ClaimableBalanceID: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("claimable balance id type")
        guard type == 0 else { throw .unknown("ClaimableBalanceIDType", Int64(type)) }
        hash = try reader.readBytes32("claimable balance id")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(Int32(0))
        writer.write(hash)
    }
}

public struct CreateClaimableBalanceOperation: Hashable, Sendable {
    public var asset: Asset
    public var amount: Int64
    /// 1 to 10.
    public var claimants: [Claimant]

    public init(asset: Asset, amount: Int64, claimants: [Claimant]) {
        self.asset = asset
        self.amount = amount
        self.claimants = claimants
    }
}
