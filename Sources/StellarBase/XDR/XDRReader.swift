/// Reads XDR (RFC 4506) values from a byte buffer, strictly.
///
/// Lengths are checked against their bounds and against the bytes that remain before anything is
/// allocated, padding must be zero and optional flags must be 0 or 1, so no input makes the reader
/// trap or allocate more than the input's size.
public struct XDRReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int
    /// Where the value's bytes end: the end of `bytes`, or of the range given.
    public let end: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
        self.end = bytes.count
    }

    /// A reader of the value in `range` of `bytes` only (one of many values laid end to end in
    /// one buffer, as start-up's batches of stored entries are).
    public init(_ bytes: [UInt8], in range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "the range is within the bytes")
        self.bytes = bytes
        self.offset = range.lowerBound
        self.end = range.upperBound
    }

    public var remaining: Int { end - offset }

    /// Throws unless every byte was read.
    public func finish() throws(XDRError) {
        if offset != end {
            throw XDRError(.trailingBytes, "\(end - offset) bytes remain after the value")
        }
    }

    @inline(__always)
    public mutating func readUInt32(_ what: @autoclosure () -> String = "uint32") throws(XDRError) -> UInt32 {
        guard end - offset >= 4 else { throw .truncated(what()) }
        let value = bytes.withUnsafeBufferPointer { buffer in
            UInt32(buffer[offset]) << 24 | UInt32(buffer[offset + 1]) << 16
                | UInt32(buffer[offset + 2]) << 8 | UInt32(buffer[offset + 3])
        }
        offset += 4
        return value
    }

    @inline(__always)
    public mutating func readInt32(_ what: @autoclosure () -> String = "int32") throws(XDRError) -> Int32 {
        Int32(bitPattern: try readUInt32(what()))
    }

    @inline(__always)
    public mutating func readUInt64(_ what: @autoclosure () -> String = "uint64") throws(XDRError) -> UInt64 {
        guard end - offset >= 8 else { throw .truncated(what()) }
        let high = try readUInt32()
        let low = try readUInt32()
        return UInt64(high) << 32 | UInt64(low)
    }

    @inline(__always)
    public mutating func readInt64(_ what: @autoclosure () -> String = "int64") throws(XDRError) -> Int64 {
        Int64(bitPattern: try readUInt64(what()))
    }

    public mutating func readBool(_ what: @autoclosure () -> String = "bool") throws(XDRError) -> Bool {
        switch try readUInt32(what()) {
        case 0: return false
        case 1: return true
        case let other: throw XDRError(.nonCanonical, "\(what()) flag is \(other), not 0 or 1")
        }
    }

    public mutating func readBytes32(_ what: @autoclosure () -> String = "32-byte value") throws(XDRError) -> Bytes32 {
        guard end - offset >= 32 else { throw .truncated(what()) }
        let w0 = try readUInt64(), w1 = try readUInt64(), w2 = try readUInt64(), w3 = try readUInt64()
        return Bytes32(w0: w0, w1: w1, w2: w2, w3: w3)
    }

    /// Fixed-length opaque data of `count` bytes, then its zero padding.
    public mutating func readFixedOpaque(_ count: Int, _ what: @autoclosure () -> String) throws(XDRError) -> [UInt8] {
        let padded = (count + 3) & ~3
        guard end - offset >= padded else { throw .truncated(what()) }
        let data = Array(bytes[offset..<(offset + count)])
        for index in (offset + count)..<(offset + padded) where bytes[index] != 0 {
            throw XDRError(.nonCanonical, "\(what()) has non-zero padding")
        }
        offset += padded
        return data
    }

    /// Variable-length opaque data or a string of at most `maxLength` bytes.
    public mutating func readVariableOpaque(maxLength: Int, _ what: @autoclosure () -> String) throws(XDRError) -> [UInt8] {
        let length = try readUInt32(what())
        guard length <= UInt32(clamping: maxLength) else { throw .tooLong(what(), length, max: maxLength) }
        return try readFixedOpaque(Int(length), what())
    }

    /// An optional value: a 0/1 flag, then the value when the flag is 1.
    public mutating func readOptional<T: XDRCodable>(_ type: T.Type, _ what: @autoclosure () -> String) throws(XDRError) -> T? {
        try readBool(what()) ? try T(xdr: &self) : nil
    }

    /// A variable-length array of at most `maxCount` elements, each at least `minElementSize` bytes.
    public mutating func readArray<T: XDRCodable>(
        _ type: T.Type, maxCount: Int, minElementSize: Int = 4, _ what: @autoclosure () -> String
    ) throws(XDRError) -> [T] {
        let count = try readUInt32(what())
        guard count <= UInt32(clamping: maxCount) else { throw .tooLong(what(), count, max: maxCount) }
        // A count larger than the remaining bytes could hold is refused before any allocation.
        guard Int(count) * minElementSize <= remaining else { throw .truncated(what()) }
        var values: [T] = []
        values.reserveCapacity(Int(count))
        for _ in 0..<count { values.append(try T(xdr: &self)) }
        return values
    }
}
