#if canImport(Glibc)
    import Glibc
#endif

/// Reads a descriptor to its end, never more than a limit and one byte: whatever a name or a pipe
/// turns out to hold, memory stays bounded by the limit.
enum BoundedRead {
    enum Outcome: Equatable {
        case complete([UInt8])
        /// More than the limit: reading stopped one byte past it.
        case tooLarge
    }

    /// Everything up to end of file, or `.tooLarge`; throws the errno of a failed read.
    static func bytes(from fd: Int32, limit: Int) throws(Failure) -> Outcome {
        var info = stat()
        // A regular file says its size: a larger one is refused without reading it.
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > limit { return .tooLarge }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        defer { chunk.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        while bytes.count <= limit {
            let wanted = min(chunk.count, limit + 1 - bytes.count)
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(code: errno)
            }
            if got == 0 { return .complete(bytes) }
            // Grown by doubling, but never past the bound: the buffer is at most `limit + 1` bytes.
            if bytes.count + got > bytes.capacity { bytes.reserveCapacity(min(limit + 1, max(2 * bytes.capacity, bytes.count + got))) }
            bytes.append(contentsOf: chunk[..<got])
        }
        bytes.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        return .tooLarge
    }

    struct Failure: Error {
        let code: Int32
        var reason: String { String(cString: strerror(code)) }
    }
}
