#if canImport(Glibc)
    import Glibc
#endif

/// Reads utmp as an array of glibc's own `struct utmpx` records, so the layout comes from the
/// system headers. `getutxent` is not used: it keeps the open file and position in hidden global
/// state, which concurrent callers would share.
enum UtmpFile {
    /// Where glibc keeps it (`/var/run/utmp` is a link to it).
    static let path = "/run/utmp"
    /// Enough for thousands of logins; a larger file is read only this far.
    static let sizeLimit = 1 << 20

    /// The `USER_PROCESS` records in `bytes`; a trailing partial record is ignored.
    static func loginRecords(in bytes: [UInt8]) -> [LoginRecord] {
        let size = MemoryLayout<utmpx>.size
        return bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count - size + 1, by: size).compactMap { offset in
                let record = raw.loadUnaligned(fromByteOffset: offset, as: utmpx.self)
                guard record.ut_type == Int16(USER_PROCESS) else { return nil }
                return LoginRecord(line: string(record.ut_line), host: string(record.ut_host), processID: record.ut_pid)
            }
        }
    }

    /// A fixed-size C character array: up to its first NUL, or all of it when it is full.
    private static func string<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
