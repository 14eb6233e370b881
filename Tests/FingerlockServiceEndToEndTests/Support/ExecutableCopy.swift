import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Copies a built program to where the test users can run it, through a descriptor that is
/// close-on-exec from the start. `FileManager.copyItem` writes through one that is not: a process
/// another test forks meanwhile inherits it, keeps the copy open for writing for as long as it runs
/// (a service started by a parallel suite runs for seconds), and every exec of the copy fails with
/// "Text file busy".
enum ExecutableCopy {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func copy(_ source: String, to destination: String, mode: mode_t = 0o755) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot create \(destination): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { raw -> Int in
            var done = 0
            while done < raw.count {
                let count = write(fd, raw.baseAddress! + done, raw.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                done += count
            }
            return done
        }
        guard written == bytes.count, fchmod(fd, mode) == 0 else {
            throw Failure(description: "cannot write \(destination): \(String(cString: strerror(errno)))")
        }
    }
}
