internal import CFprint
import Foundation

/// Conversions between `FpPrint` and ``EnrolledPrint`` (on the libfprint thread).
enum PrintTemplate {
    /// A floating `FpPrint` carrying the metadata libfprint does not fill in itself.
    static func draft(
        for device: UnsafeMutablePointer<FpDevice>, finger: Finger, username: String, date: Date
    ) -> OpaquePointer {
        let print = fp_print_new(device)!
        fp_print_set_finger(print, FpFinger(rawValue: UInt32(finger.ordinal)))
        fp_print_set_username(print, username)
        let day = Calendar.current.dateComponents([.year, .month, .day], from: date)
        let gdate = g_date_new_dmy(
            GDateDay(day.day ?? 1), GDateMonth(rawValue: UInt32(day.month ?? 1)), GDateYear(day.year ?? 1970))
        fp_print_set_enroll_date(print, gdate)
        g_date_free(gdate)
        return print
    }

    /// Serialized bytes of `print` (they start with `FP3`).
    static func serialize(_ print: OpaquePointer) throws -> Data {
        var bytes: UnsafeMutablePointer<guchar>?
        var length: gsize = 0
        do throws(GLibError) {
            try withGError { error in _ = fp_print_serialize(print, &bytes, &length, error) }
        } catch {
            throw FingerprintError(.invalidPrint, "The enrolled print could not be saved (\(error.message)).")
        }
        guard let bytes else { return Data() }
        defer { g_free(bytes) }
        return Data(bytes: bytes, count: Int(length))
    }

    /// A full reference to the `FpPrint` in `print`, checked to belong to `device`.
    static func load(
        _ print: EnrolledPrint, for device: UnsafeMutablePointer<FpDevice>, reader: ReaderIdentity
    ) throws -> OpaquePointer {
        let loaded = try print.template.withUnsafeBytes { raw -> OpaquePointer? in
            do throws(GLibError) {
                return try withGError { error in
                    fp_print_deserialize(raw.bindMemory(to: guchar.self).baseAddress, gsize(raw.count), error)
                }
            } catch {
                throw FingerprintError(
                    .invalidPrint,
                    "The \(print.finger) print for \(print.reader) is unreadable (\(error.message)); enroll it again.")
            }
        }
        guard let loaded else {
            throw FingerprintError(
                .invalidPrint, "The \(print.finger) print for \(print.reader) is empty; enroll it again.")
        }
        guard fp_print_compatible(loaded, device) != 0 else {
            g_object_unref(UnsafeMutableRawPointer(loaded))
            throw FingerprintError.incompatible(print, reader: reader)
        }
        return loaded
    }

    /// An ``EnrolledPrint`` for a print listed from a reader's storage; nil when the reader did not
    /// record which finger it is (such prints can only be removed by clearing the storage).
    static func enrolledPrint(_ print: OpaquePointer, reader: ReaderIdentity) throws -> EnrolledPrint? {
        let ordinal = Int(fp_print_get_finger(print).rawValue)
        guard (1...Finger.allCases.count).contains(ordinal) else { return nil }
        var enrolled = Date(timeIntervalSince1970: 0)
        if let gdate = fp_print_get_enroll_date(print), g_date_valid(gdate) != 0 {
            var components = DateComponents()
            components.year = Int(g_date_get_year(gdate))
            components.month = Int(g_date_get_month(gdate).rawValue)
            components.day = Int(g_date_get_day(gdate))
            enrolled = Calendar.current.date(from: components) ?? enrolled
        }
        return EnrolledPrint(
            finger: Finger.allCases[ordinal - 1], reader: reader, template: try serialize(print), enrolled: enrolled)
    }
}

/// What a serialized template says about itself (for tests and diagnostics).
struct TemplateMetadata: Equatable, Sendable {
    var finger: Finger?
    var username: String?
    /// Year, month and day of the enroll date, if one was set.
    var enrollDay: DateComponents?
    var driver: String
    var deviceID: String
}

extension PrintTemplate {
    /// Reads the metadata of serialized `template` (on the libfprint thread).
    static func metadata(_ template: Data) throws -> TemplateMetadata {
        let print = try template.withUnsafeBytes { raw throws(GLibError) in
            try withGError { error in
                fp_print_deserialize(raw.bindMemory(to: guchar.self).baseAddress, gsize(raw.count), error)
            }
        }
        guard let print else { throw GLibError(domain: .device, code: 6, message: "empty template") }
        defer { g_object_unref(UnsafeMutableRawPointer(print)) }
        let ordinal = Int(fp_print_get_finger(print).rawValue)
        var day: DateComponents?
        if let gdate = fp_print_get_enroll_date(print), g_date_valid(gdate) != 0 {
            day = DateComponents(
                year: Int(g_date_get_year(gdate)), month: Int(g_date_get_month(gdate).rawValue),
                day: Int(g_date_get_day(gdate)))
        }
        return TemplateMetadata(
            finger: (1...10).contains(ordinal) ? Finger.allCases[ordinal - 1] : nil,
            username: fp_print_get_username(print).map { String(cString: $0) },
            enrollDay: day,
            driver: String(cString: fp_print_get_driver(print)),
            deviceID: String(cString: fp_print_get_device_id(print)))
    }
}

extension LibfprintContext {
    /// The metadata stored inside `print`'s template.
    func metadata(of print: EnrolledPrint) async throws -> TemplateMetadata {
        let template = print.template
        return try await thread.run { try PrintTemplate.metadata(template) }
    }
}
