/// Closing times, in seconds since 1970, between which a transaction is valid; 0 means unbounded.
public struct TimeBounds: Hashable, Sendable {
    public var minTime: UInt64
    public var maxTime: UInt64

    public init(minTime: UInt64, maxTime: UInt64) {
        self.minTime = minTime
        self.maxTime = maxTime
    }
}

extension TimeBounds: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        minTime = try reader.readUInt64("minTime")
        maxTime = try reader.readUInt64("maxTime")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(minTime)
        writer.write(maxTime)
    }
}

/// Ledger sequence numbers between which a transaction is valid (`maxLedger` 0: unbounded).
public struct LedgerBounds: Hashable, Sendable {
    public var minLedger: UInt32
    public var maxLedger: UInt32

    public init(minLedger: UInt32, maxLedger: UInt32) {
        self.minLedger = minLedger
        self.maxLedger = maxLedger
    }
}

extension LedgerBounds: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        minLedger = try reader.readUInt32("minLedger")
        maxLedger = try reader.readUInt32("maxLedger")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.write(minLedger)
        writer.write(maxLedger)
    }
}

/// The CAP-21 preconditions of a transaction.
public struct PreconditionsV2: Hashable, Sendable {
    public var timeBounds: TimeBounds?
    public var ledgerBounds: LedgerBounds?
    public var minSequenceNumber: Int64?
    public var minSequenceAge: UInt64
    public var minSequenceLedgerGap: UInt32
    /// At most two.
    public var extraSigners: [SignerKey]

    public init(
        timeBounds: TimeBounds? = nil, ledgerBounds: LedgerBounds? = nil, minSequenceNumber: Int64? = nil,
        minSequenceAge: UInt64 = 0, minSequenceLedgerGap: UInt32 = 0, extraSigners: [SignerKey] = []
    ) {
        self.timeBounds = timeBounds
        self.ledgerBounds = ledgerBounds
        self.minSequenceNumber = minSequenceNumber
        self.minSequenceAge = minSequenceAge
        self.minSequenceLedgerGap = minSequenceLedgerGap
        self.extraSigners = extraSigners
    }
}

extension PreconditionsV2: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        timeBounds = try reader.readOptional(TimeBounds.self, "timeBounds flag")
        ledgerBounds = try reader.readOptional(LedgerBounds.self, "ledgerBounds flag")
        minSequenceNumber = try reader.readBool("minSeqNum flag") ? try reader.readInt64("minSeqNum") : nil
        minSequenceAge = try reader.readUInt64("minSeqAge")
        minSequenceLedgerGap = try reader.readUInt32("minSeqLedgerGap")
        extraSigners = try reader.readArray(SignerKey.self, maxCount: 2, minElementSize: 36, "extraSigners")
    }

    public func encode(to writer: inout XDRWriter) {
        writer.writeOptional(timeBounds)
        writer.writeOptional(ledgerBounds)
        if let minSequenceNumber {
            writer.write(UInt32(1))
            writer.write(minSequenceNumber)
        } else {
            writer.write(UInt32(0))
        }
        writer.write(minSequenceAge)
        writer.write(minSequenceLedgerGap)
        writer.writeArray(extraSigners)
    }
}

/// When a transaction may be applied.
public enum Preconditions: Hashable, Sendable {
    case none
    case time(TimeBounds)
    case v2(PreconditionsV2)

    /// The time bounds, whichever form holds them.
    public var timeBounds: TimeBounds? {
        switch self {
        case .none: nil
        case .time(let bounds): bounds
        case .v2(let v2): v2.timeBounds
        }
    }
}

extension Preconditions: XDRCodable {
    public init(xdr reader: inout XDRReader) throws(XDRError) {
        let type = try reader.readInt32("preconditions type")
        switch type {
        case 0: self = .none
        case 1: self = .time(try TimeBounds(xdr: &reader))
        case 2: self = .v2(try PreconditionsV2(xdr: &reader))
        default: throw .unknown("PreconditionType", Int64(type))
        }
    }

    public func encode(to writer: inout XDRWriter) {
        switch self {
        case .none: writer.write(Int32(0))
        case .time(let bounds): writer.write(Int32(1)); bounds.encode(to: &writer)
        case .v2(let v2): writer.write(Int32(2)); v2.encode(to: &writer)
        }
    }
}
