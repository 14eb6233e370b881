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
        var buffer = [UInt8](repeating: 0, count: min(limit, 4096))
        var count = 0
        while count < limit {
            if count == buffer.count { buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, limit - count))) }
            let room = buffer.count - count
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, room) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            count += got
        }
        buffer.removeSubrange(count...)
        return buffer
    }

    static func text(_ path: String, limit: Int = 4096) -> String? {
        bytes(path, limit: limit).map { String(decoding: $0, as: UTF8.self) }
    }
}
