import FoundationEssentials
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
///
/// Passcode attempts in flight are locks on `attempts-in-flight` (see `InFlightPasscodes`), not in
/// the record: it keeps counting them as wrong until judged, in the format every version reads.
public struct FileAttemptStore: AttemptStore {
    let dataDirectory: String
    let path: String
    let inFlight: InFlightPasscodes
    /// Where versions before the in-place record kept the counters (JSON, replaced by rename); read once
    /// and removed when found, so an upgrade keeps a running lockout.
    let legacyPath: String

    static let recordSize = 96
    static let magic = "fingerlock-attempts"

    public init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        path = dataDirectory + "/attempts"
        legacyPath = dataDirectory + "/attempts.json"
        inFlight = InFlightPasscodes(path: dataDirectory + "/" + InFlightPasscodes.name)
    }

    public func passcodesInFlight(capacity: Int) throws -> Int {
        try inFlight.count(capacity: capacity)
    }

    public func holdPasscodeInFlight(capacity: Int) throws -> PasscodeHold? {
        try inFlight.hold(capacity: capacity)
    }

    public func read() throws -> AttemptState {
        try withRecord { fd in try load(fd) }
    }

    @discardableResult
    public func update<T>(_ body: (inout AttemptState) throws -> T) throws -> T {
        try withRecord { fd in
            var state = try load(fd)
            let before = state
            let result = try body(&state)
            if state != before {
                // Only the passcode counters must survive an OS crash or power loss. The touch counter
                // guards a key that lives in the kernel keyring, which a crash or power loss empties
                // too: afterwards no touch can unlock anything until the passcode is entered (which
                // clears the counter). Written without fsync it still reaches the kernel before the
                // touch is checked, so killing the process cannot skip a failure.
                let passcodeCountersChanged =
                    state.failedPasscodes != before.failedPasscodes
                    || state.lastPasscodeFailure != before.lastPasscodeFailure
                try store(state, fd, durable: passcodeCountersChanged)
            }
            return result
        }
    }

    /// Runs `body` with the record open and locked, and its size as found under the lock.
    ///
    /// The record never exists empty: a new one is written in full under a temporary name and
    /// linked into place, so an empty, short or unparsable file is always damage (never "no
    /// attempts yet", which would end a lockout); only a missing file is a fresh start.
    private func withRecord<T>(_ body: (Int32) throws -> T) throws -> T {
        _ = try PrivateDirectory(creating: dataDirectory)
        while true {
            guard let lock = try existingRecordLocked() else {
                try createRecord()
                continue
            }
            return try withExtendedLifetime(lock) {
                let size = try PrivateDirectory.checkFile(descriptor: lock.descriptor, path: path)
                guard size > 0 else { throw damaged(path) }
                return try body(lock.descriptor)
            }
        }
    }

    /// The record, open and locked; nil when there is none yet.
    private func existingRecordLocked() throws -> FileLock? {
        do {
            return try FileLock(path: path, timeout: .seconds(30), creating: false)
        } catch {
            if error.code == .missing { return nil }
            throw error
        }
    }

    /// Puts a complete first record in place (counters migrated from `attempts.json` when an
    /// earlier version left them), durably, unless another process got there first.
    private func createRecord() throws {
        let initial = try legacyState() ?? AttemptState()
        // A name of its own per call: two threads of one process sharing a temp file once unlinked each
        // other's and linked a still-empty record into place, which every later read took as damage.
        let fd: Int32
        let temporary: String
        do { (fd, temporary) = try AtomicFile.createTemporary(beside: path) } catch { throw ioError("create") }
        defer { _ = unlink(temporary) }
        let record = Self.format(initial)
        let failed = FileDescriptorIO.writeAll(fd, record) != nil || fsync(fd) != 0
        close(fd)
        if failed { throw ioError("write") }
        // link() fails with EEXIST instead of replacing a record another process made meanwhile.
        if link(temporary, path) != 0 && errno != EEXIST { throw ioError("create") }
        try AtomicFile.syncDirectory(dataDirectory)
        if initial != AttemptState() || access(legacyPath, F_OK) == 0 {
            _ = try AtomicFile.remove(legacyPath)
            _ = try AtomicFile.remove(dataDirectory + "/attempts.lock")
        }
    }

    private func load(_ fd: Int32) throws -> AttemptState {
        var buffer = [UInt8](repeating: 0, count: Self.recordSize + 1)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw ioError("read") }
        guard count <= Self.recordSize, let state = Self.parse(buffer[..<count]) else { throw damaged(path) }
        return state
    }

    private func store(_ state: AttemptState, _ fd: Int32, durable: Bool) throws {
        let record = Self.format(state)
        let written = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == record.count, ftruncate(fd, off_t(record.count)) == 0 else { throw ioError("write") }
        guard durable else { return }
        guard fdatasync(fd) == 0 else { throw ioError("write") }
    }

    /// The counters an earlier version left in `attempts.json`, or nil when there is none.
    private func legacyState() throws -> AttemptState? {
        guard access(legacyPath, F_OK) == 0 else { return nil }
        try PrivateDirectory.checkFile(legacyPath)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let state = try? decoder.decode(AttemptState.self, from: Data(try AtomicFile.read(legacyPath))) else {
            throw damaged(legacyPath)
        }
        return state
    }

    private func ioError(_ verb: String) -> AttemptStoreError {
        AttemptStoreError("Cannot \(verb) the attempt counters in \(path) (errno \(errno)).")
    }

    private func damaged(_ file: String) -> AttemptStoreError {
        AttemptStoreError(
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
