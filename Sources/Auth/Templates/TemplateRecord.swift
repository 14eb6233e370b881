public import Fingerprint
public import Foundation

/// The bytes an enrolled print is sealed as in the vault: a small binary record.
///
/// Every `verify` and every unlock by touch opens the enrolled prints, so the record is read by hand
/// in microseconds instead of through JSONDecoder, whose first use (with base64 template bytes and
/// ISO 8601 dates) cost half a millisecond of a few-millisecond run. Layout, integers big-endian:
/// version 1 (1 byte) · finger name length (1) · finger name · reader length (2) · reader
/// (`driver:device-id`) · enrollment time in milliseconds since 1970 (8, signed) · template bytes (the rest).
/// Prints sealed by earlier versions as JSON (they begin with `{`) are still read.
public enum TemplateRecord {
    static let version: UInt8 = 1

    public static func encode(_ print: EnrolledPrint) throws(AuthError) -> Data {
        let finger = Array(print.finger.rawValue.utf8)
        let reader = Array(print.reader.description.utf8)
        guard reader.count <= Int(UInt16.max) else {
            throw AuthError(.invalidInput, "The reader id \(print.reader) is too long to store.")
        }
        var bytes: [UInt8] = [version, UInt8(finger.count)]
        bytes.reserveCapacity(bytes.count + finger.count + 2 + reader.count + 8 + print.template.count)
        bytes += finger
        bytes += [UInt8(reader.count >> 8), UInt8(reader.count & 0xff)]
        bytes += reader
        let milliseconds = Int64((print.enrolled.timeIntervalSince1970 * 1000).rounded())
        bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: milliseconds >> ($0 * 8)) }
        bytes += print.template
        return Data(bytes)
    }

    /// The print in `data`, or nil when it is neither a well-formed record nor an earlier version's JSON.
    public static func decode(_ data: Data) -> EnrolledPrint? {
        guard let first = data.first else { return nil }
        if first == UInt8(ascii: "{") { return decodeJSON(data) }
        guard first == version else { return nil }
        var rest = data.dropFirst()
        func take(_ count: Int) -> Data? {
            guard rest.count >= count else { return nil }
            defer { rest = rest.dropFirst(count) }
            return rest.prefix(count)
        }
        guard let fingerLength = take(1)?.first,
            let fingerBytes = take(Int(fingerLength)),
            let finger = Finger(rawValue: String(decoding: fingerBytes, as: UTF8.self)),
            let readerLength = take(2).map({ Int($0[$0.startIndex]) << 8 | Int($0[$0.startIndex + 1]) }),
            let readerBytes = take(readerLength),
            let reader = ReaderIdentity(String(decoding: readerBytes, as: UTF8.self)),
            let time = take(8)
        else { return nil }
        let milliseconds = time.reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return EnrolledPrint(
            finger: finger, reader: reader, template: Data(rest),
            enrolled: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    private static func decodeJSON(_ data: Data) -> EnrolledPrint? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(EnrolledPrint.self, from: data)
    }
}
