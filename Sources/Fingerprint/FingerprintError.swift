/// Everything that can go wrong at the reader layer, each with the sentence a user needs.
public struct FingerprintError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// No reader is connected (or the requested one is not there).
        case noReader
        /// The device node exists but this user may not open it.
        case permissionDenied
        /// Another program (for example fprintd) is using the reader.
        case busy
        /// The reader was unplugged during the operation.
        case unplugged
        /// The sensor overheated and needs to cool down.
        case tooHot
        /// The reader's own storage is full.
        case storageFull
        /// The finger is already enrolled on the reader's own storage.
        case duplicate
        /// The reader rejected a template, or a stored template is unreadable.
        case invalidPrint
        /// A print the reader was asked about is not in its storage.
        case printNotFound
        /// The reader cannot do what was asked.
        case notSupported
        /// No finger was presented within the scan timeout.
        case timedOut
        /// The user asked to use the passcode instead of the reader.
        case userFallback
        /// The print was enrolled on a different reader.
        case incompatiblePrint
        /// A communication or internal error of the device.
        case deviceError
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    public static func noReader(_ detail: String? = nil) -> FingerprintError {
        FingerprintError(.noReader, detail ?? "No fingerprint reader was found. Connect a supported USB reader.")
    }
    public static func timedOut(after seconds: Double) -> FingerprintError {
        FingerprintError(.timedOut, "No finger was detected within \(formatSeconds(seconds)).")
    }
    public static var userFallback: FingerprintError {
        FingerprintError(.userFallback, "The passcode was chosen instead of the fingerprint.")
    }
    public static func incompatible(_ print: EnrolledPrint, reader: ReaderIdentity) -> FingerprintError {
        FingerprintError(
            .incompatiblePrint,
            "The \(print.finger) print was enrolled on \(print.reader), not on \(reader); enroll it on this reader.")
    }
}

func formatSeconds(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
}
