/// A response APDU split into its data and status word, without copying the data.
package struct ResponseAPDU {
    /// The whole response, status word included.
    package let bytes: [UInt8]

    /// The status word `SW1 SW2` as one number (`0x9000` for success).
    package var status: UInt16 { UInt16(bytes[bytes.count - 2]) << 8 | UInt16(bytes[bytes.count - 1]) }
    /// The number of data bytes before the status word.
    package var dataCount: Int { bytes.count - 2 }
    /// The data bytes before the status word.
    package var data: ArraySlice<UInt8> { bytes[0..<(bytes.count - 2)] }
    /// Whether the status word is `90 00`.
    package var isSuccess: Bool { status == 0x9000 }
}
