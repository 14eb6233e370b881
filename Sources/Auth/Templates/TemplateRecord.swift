public import Fingerprint
public import Foundation
import Vault

/// The bytes an enrolled print is sealed as in the vault, in the vault's own binary encoding
/// (`ByteWriter`): version 1, finger name, reader (`driver:device-id`), enrollment date, template.
///
/// Every `verify` and every unlock by touch opens the enrolled prints, so they are read by hand,
/// on the hot path, without a general-purpose decoder. Prints sealed as JSON by earlier versions
/// (they begin with `{`) are still read.
public enum TemplateRecord {
    static let version: UInt8 = 1
    /// A reader id is a driver name and a device id; anything this long is not one.
    static let maximumReaderLength = Int(UInt16.max)

    public static func encode(_ print: EnrolledPrint) throws(AuthError) -> Data {
        let reader = print.reader.description
        guard reader.utf8.count <= maximumReaderLength else {
            throw AuthError(.invalidInput, "The reader id \(print.reader) is too long to store.")
        }
        var writer = ByteWriter(capacity: 64 + print.template.count)
        writer.u8(version)
        writer.string(print.finger.rawValue)
        writer.string(reader)
        writer.date(print.enrolled)
        writer.field(print.template)
        return writer.data
    }

    /// The print in `data`, or nil when it is neither a well-formed record nor an earlier version's JSON.
    public static func decode(_ data: Data) -> EnrolledPrint? {
        guard let first = data.first else { return nil }
        if first == UInt8(ascii: "{") { return decodeJSON(data) }
        var reader = ByteReader(data)
        guard reader.u8() == version,
            let finger = reader.string().flatMap(Finger.init(rawValue:)),
            let identity = reader.string().flatMap(ReaderIdentity.init),
            let enrolled = reader.date(),
            let template = reader.field(),
            reader.isAtEnd
        else { return nil }
        return EnrolledPrint(finger: finger, reader: identity, template: Data(template), enrolled: enrolled)
    }

    private static func decodeJSON(_ data: Data) -> EnrolledPrint? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(EnrolledPrint.self, from: data)
    }
}
