import Foundation
import SafeFiles

#if canImport(Glibc)
import Glibc
#endif

/// The counters as one small 0600 record beside the vault, read and rewritten in place under a `flock`
/// on the file itself.
///
/// Counters must be written before the passcode is known, so they cannot be sealed with the vault's
/// key; deleting the file resets them, which needs a shell as the user — outside what user mode
/// protects against (see the threat model).
///
/// Every touch updates the file twice (counted before the scan, cleared after a match), so it is
/// built for that: one open and one lock per update, a fixed-size record rewritten in place by a
/// single `pwrite` (which a killed process cannot tear, and which stays inside one disk sector), and
/// no rename, which on ext4 starts writeback of the new file at once. The record is text, for
/// whoever looks: `fingerlock-attempts 1 touches=N passcodes=N last-passcode-failure=MILLISECONDS|-`.
public struct FileAttemptStore: AttemptStore {
    let dataDirectory: String
    let path: String
    /// Where versions before the in-place record kept the counters (JSON, replaced by rename); read once
    /// and removed when found, so an upgrade keeps a running lockout.
    let legacyPath: String

    static let recordSize = 96
    static let magic = "fingerlock-attempts"

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        path = dataDirectory + "/attempts"
        legacyPath = dataDirectory + "/attempts.json"
    }

    public func read() throws -> AttemptState {
        try withRecord { fd, size in try load(fd, size: size) }
    }

    @discardableResult
    public func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T {
        try withRecord { fd, size in
            var state = try load(fd, size: size)
            let before = state
            let result = try body(&state)
            if state != before {
                // Only the passcode counters must survive an OS crash or power loss. The touch counter
                // guards a key that lives in the kernel keyring, which a crash or power loss empties
                // too: afterwards no touch can unlock anything until the passcode is entered (which
                // clears the counter). Written without fsync it still reaches the kernel before the
                // touch is checked, so killing the process cannot skip a failure. The first record in
                // a new file is always made durable, with the directory entry that names the file.
                let passcodeCountersChanged =
                    state.failedPasscodes != before.failedPasscodes
                    || state.lastPasscodeFailure != before.lastPasscodeFailure
                try store(state, fd, durable: passcodeCountersChanged, first: size == 0)
            }
            return result
        }
    }

    /// Runs `body` with the record open and locked, and its size as found under the lock.
    private func withRecord<T>(_ body: (Int32, Int) throws -> T) throws -> T {
        _ = try PrivateDirectory(creating: dataDirectory)
        let lock = try FileLock(path: path, timeout: .seconds(30))
        return try withExtendedLifetime(lock) {
            let size = try PrivateDirectory.checkFile(descriptor: lock.descriptor, path: path)
            return try body(lock.descriptor, size)
        }
    }

    private func load(_ fd: Int32, size: Int) throws -> AttemptState {
        if size == 0 { return try migrateLegacy(fd) }
        guard size <= Self.recordSize else { throw damaged(path) }
        var buffer = [UInt8](repeating: 0, count: size)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count == size else { throw ioError("read") }
        guard let state = Self.parse(buffer[...]) else { throw damaged(path) }
        return state
    }

    /// `first`: the file was empty, so this also makes the record and the directory entry durable.
    private func store(_ state: AttemptState, _ fd: Int32, durable: Bool, first: Bool) throws {
        let record = Self.format(state)
        let written = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == record.count, ftruncate(fd, off_t(record.count)) == 0 else { throw ioError("write") }
        guard durable || first else { return }
        guard fdatasync(fd) == 0 else { throw ioError("write") }
        if first { try AtomicFile.syncDirectory(dataDirectory) }
    }

    /// The counters an earlier version left in `attempts.json`, moved into the new (empty) record.
    private func migrateLegacy(_ fd: Int32) throws -> AttemptState {
        guard access(legacyPath, F_OK) == 0 else { return AttemptState() }
        try PrivateDirectory.checkFile(legacyPath)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let state = try? decoder.decode(AttemptState.self, from: Data(try AtomicFile.read(legacyPath))) else {
            throw damaged(legacyPath)
        }
        try store(state, fd, durable: true, first: true)
        _ = try AtomicFile.remove(legacyPath)
        _ = try AtomicFile.remove(dataDirectory + "/attempts.lock")
        return state
    }

    private func ioError(_ verb: String) -> AuthError {
        AuthError(.dataError, "Cannot \(verb) the attempt counters in \(path) (errno \(errno)).")
    }

    private func damaged(_ file: String) -> AuthError {
        AuthError(
            .dataError,
            "The attempt counters in \(file) are damaged; fingerlock will not guess them. Deleting the file resets them (and ends any lockout).")
    }

    static func format(_ state: AttemptState) -> [UInt8] {
        let last = state.lastPasscodeFailure.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? "-"
        var text = "\(magic) 1 touches=\(state.failedTouches) passcodes=\(state.failedPasscodes) last-passcode-failure=\(last)"
        // Padded to a fixed size, so every write replaces the whole record.
        if text.utf8.count < recordSize - 1 { text += String(repeating: " ", count: recordSize - 1 - text.utf8.count) }
        return Array((text + "\n").utf8)
    }

    static func parse(_ bytes: ArraySlice<UInt8>) -> AttemptState? {
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 5, fields[0] == magic, fields[1] == "1" else { return nil }
        func value(_ field: Substring, _ key: String) -> Substring? {
            field.hasPrefix(key + "=") ? field.dropFirst(key.count + 1) : nil
        }
        guard let touches = value(fields[2], "touches").flatMap({ Int($0) }), touches >= 0,
            let passcodes = value(fields[3], "passcodes").flatMap({ Int($0) }), passcodes >= 0,
            let last = value(fields[4], "last-passcode-failure")
        else { return nil }
        var lastFailure: Date?
        if last != "-" {
            // A clock set before 1970 gives a negative time; it still reads back.
            guard let milliseconds = Int64(last) else { return nil }
            lastFailure = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
        return AttemptState(failedTouches: touches, failedPasscodes: passcodes, lastPasscodeFailure: lastFailure)
    }
}
