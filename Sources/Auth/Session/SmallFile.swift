#if canImport(Glibc)
    import Glibc
#endif

/// Reads kernel-generated and runtime files (procfs, `/run`) with plain system calls. procfs files
/// report a size of 0 whatever they hold, so they are read to end of file; and this runs at every
/// unlock, where a Foundation file handle costs more than the read itself.
enum SmallFile {
    static func bytes(_ path: String, limit: Int = 4096) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        let chunk = min(limit, 4096)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunk) { buffer -> [UInt8]? in
            var content: [UInt8] = []
            while content.count < limit {
                let got = read(descriptor, buffer.baseAddress, min(chunk, limit - content.count))
                if got < 0 {
                    if errno == EINTR { continue }
                    return nil
                }
                if got == 0 { break }
                content.append(contentsOf: buffer[..<got])
            }
            return content
        }
    }

    static func text(_ path: String, limit: Int = 4096) -> String? {
        bytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }
}
