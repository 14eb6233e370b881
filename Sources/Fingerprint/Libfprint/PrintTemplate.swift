internal import CFprint

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Conversions between `FpPrint` and ``EnrolledPrint`` (on the libfprint thread).
enum PrintTemplate {
    /// A floating `FpPrint` carrying the metadata libfprint does not fill in itself.
    static func draft(
        for device: UnsafeMutablePointer<FpDevice>, finger: Finger, username: String, date: Date
    ) -> OpaquePointer {
        let print = libfprint.fp_print_new(device)!
        libfprint.fp_print_set_finger(print, FpFinger(rawValue: UInt32(finger.ordinal)))
        libfprint.fp_print_set_username(print, username)
        // GLib computes the local calendar day (Foundation's Calendar would pull in ICU, slowing start-up).
        let gdate = libfprint.g_date_new()!
        libfprint.g_date_set_time_t(gdate, time_t(date.timeIntervalSince1970))
        libfprint.fp_print_set_enroll_date(print, gdate)
        libfprint.g_date_free(gdate)
        return print
    }

    /// Serialized bytes of `print` (they start with `FP3`).
    static func serialize(_ print: OpaquePointer) throws -> Data {
        var bytes: UnsafeMutablePointer<guchar>?
        var length: gsize = 0
        do throws(GLibError) {
            try withGError { error in _ = libfprint.fp_print_serialize(print, &bytes, &length, error) }
        } catch {
            throw FingerprintError(.invalidPrint, "The enrolled print could not be saved (\(error.message)).")
        }
        guard let bytes else { return Data() }
        defer { libfprint.g_free(bytes) }
        return Data(bytes: bytes, count: Int(length))
    }

    /// A full reference to the `FpPrint` in `print`, checked to belong to `device`.
    static func load(
        _ print: EnrolledPrint, for device: UnsafeMutablePointer<FpDevice>, reader: ReaderIdentity
    ) throws -> OpaquePointer {
        try load(print.template, describedAs: "The \(print.finger) print", reader: print.reader, for: device, expected: reader)
    }

    /// A full reference to the `FpPrint` serialized in `template` (enrolled on `reader`), checked to
    /// belong to `device` (which is `expected`). `label` starts the sentence of an error.
    static func load(
        _ template: Data, describedAs label: String, reader: ReaderIdentity,
        for device: UnsafeMutablePointer<FpDevice>, expected: ReaderIdentity
    ) throws -> OpaquePointer {
        let loaded = try template.withUnsafeBytes { raw -> OpaquePointer? in
            do throws(GLibError) {
                return try withGError { error in
                    libfprint.fp_print_deserialize(raw.bindMemory(to: guchar.self).baseAddress, gsize(raw.count), error)
                }
            } catch {
                throw FingerprintError(
                    .invalidPrint, "\(label) for \(reader) is unreadable (\(error.message)); enroll it again.")
            }
        }
        guard let loaded else {
            throw FingerprintError(.invalidPrint, "\(label) for \(reader) is empty; enroll it again.")
        }
        guard libfprint.fp_print_compatible(loaded, device) != 0 else {
            libfprint.g_object_unref(UnsafeMutableRawPointer(loaded))
            throw FingerprintError(
                .incompatiblePrint, "\(label) was enrolled on \(reader), not on \(expected); enroll it on this reader.")
        }
        return loaded
    }

    /// A print listed from a reader's storage, with whatever metadata the reader recorded.
    static func storedPrint(_ print: OpaquePointer, reader: ReaderIdentity) throws -> StoredPrint {
        let ordinal = Int(libfprint.fp_print_get_finger(print).rawValue)
        let username = libfprint.fp_print_get_username(print).map { String(cString: $0) }
        return StoredPrint(
            reader: reader,
            finger: (1...Finger.allCases.count).contains(ordinal) ? Finger.allCases[ordinal - 1] : nil,
            username: username.flatMap { $0.isEmpty ? nil : $0 },
            enrolled: EnrollDay(libfprint.fp_print_get_enroll_date(print))?.utcMidnight,
            template: try serialize(print))
    }
}

/// What a serialized template says about itself (for tests and diagnostics).
struct TemplateMetadata: Equatable, Sendable {
    var finger: Finger?
    var username: String?
    /// The enroll date, if one was set.
    var enrollDay: EnrollDay?
    var driver: String
    var deviceID: String
}

extension PrintTemplate {
    /// Reads the metadata of serialized `template` (on the libfprint thread).
    static func metadata(_ template: Data) throws -> TemplateMetadata {
        let print = try template.withUnsafeBytes { raw throws(GLibError) in
            try withGError { error in
                libfprint.fp_print_deserialize(raw.bindMemory(to: guchar.self).baseAddress, gsize(raw.count), error)
            }
        }
        guard let print else { throw GLibError(domain: .device, code: 6, message: "empty template") }
        defer { libfprint.g_object_unref(UnsafeMutableRawPointer(print)) }
        let ordinal = Int(libfprint.fp_print_get_finger(print).rawValue)
        return TemplateMetadata(
            finger: (1...10).contains(ordinal) ? Finger.allCases[ordinal - 1] : nil,
            username: libfprint.fp_print_get_username(print).map { String(cString: $0) },
            enrollDay: EnrollDay(libfprint.fp_print_get_enroll_date(print)),
            driver: libfprintText(libfprint.fp_print_get_driver(print)),
            deviceID: libfprintText(libfprint.fp_print_get_device_id(print)))
    }
}

extension LibfprintContext {
    /// The metadata stored inside `print`'s template.
    func metadata(of print: EnrolledPrint) async throws -> TemplateMetadata {
        let template = print.template
        try LibfprintLibrary.require()
        return try await thread.run { try PrintTemplate.metadata(template) }
    }
}

/// A calendar day as libfprint stores it on a print (`GDate`).
struct EnrollDay: Equatable, Sendable {
    var year: Int
    var month: Int
    var day: Int

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init?(_ gdate: UnsafePointer<GDate>?) {
        guard let gdate, libfprint.g_date_valid(gdate) != 0 else { return nil }
        self.init(
            year: Int(libfprint.g_date_get_year(gdate)), month: Int(libfprint.g_date_get_month(gdate).rawValue),
            day: Int(libfprint.g_date_get_day(gdate)))
    }

    /// The day's midnight in UTC: a calendar day without a time zone, shown as that same day by
    /// fingerlock's UTC dates wherever the user is.
    var utcMidnight: Date {
        var time = tm()
        time.tm_year = Int32(year - 1900)
        time.tm_mon = Int32(month - 1)
        time.tm_mday = Int32(day)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&time)))
    }

    /// The local calendar day of `date`.
    init(localDayOf date: Date) {
        var seconds = time_t(date.timeIntervalSince1970)
        var time = tm()
        localtime_r(&seconds, &time)
        self.init(year: Int(time.tm_year) + 1900, month: Int(time.tm_mon) + 1, day: Int(time.tm_mday))
    }
}
