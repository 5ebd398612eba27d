/// Appends XDR (RFC 4506) encodings to a growing byte buffer.
public struct XDRWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    public mutating func write(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    public mutating func write(_ value: Int32) { write(UInt32(bitPattern: value)) }

    @inline(__always)
    public mutating func write(_ value: UInt64) {
        write(UInt32(truncatingIfNeeded: value >> 32))
        write(UInt32(truncatingIfNeeded: value))
    }

    @inline(__always)
    public mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }

    public mutating func write(_ value: Bool) { write(UInt32(value ? 1 : 0)) }

    /// Fixed-length opaque data: the bytes, then zero padding to a multiple of four.
    public mutating func writeFixedOpaque<C: Collection>(_ data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
        writePadding(data.count)
    }

    /// Variable-length opaque data or string: the length, the bytes, then zero padding.
    public mutating func writeVariableOpaque<C: Collection>(_ data: C) where C.Element == UInt8 {
        write(UInt32(data.count))
        writeFixedOpaque(data)
    }

    public mutating func write(_ value: Bytes32) {
        write(value.w0); write(value.w1); write(value.w2); write(value.w3)
    }

    /// An optional value: a flag, then the value when present.
    public mutating func writeOptional<T: XDRCodable>(_ value: T?) {
        if let value {
            write(UInt32(1))
            value.encode(to: &self)
        } else {
            write(UInt32(0))
        }
    }

    /// A variable-length array: the count, then each element.
    public mutating func writeArray<T: XDRCodable>(_ values: [T]) {
        write(UInt32(values.count))
        for value in values { value.encode(to: &self) }
    }

    public mutating func append(_ raw: [UInt8]) { bytes.append(contentsOf: raw) }

    private mutating func writePadding(_ count: Int) {
        let padding = (4 - count % 4) % 4
        for _ in 0..<padding { bytes.append(0) }
    }
}
