public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

public enum TemporaryDirectory {
    /// A new 0700 directory in `parent` (default: $TMPDIR): for tests whose other users must reach it,
    /// pass "/tmp", whose parents every user can traverse whatever $TMPDIR is.
    public static func make(in parent: String = NSTemporaryDirectory()) throws -> String {
        var template = Array((parent + "/fingerlockd-test-XXXXXX").utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.EIO)
        }
        return String(cString: path)
    }
}

/// Removes a test's temporary directory once nothing refers to it.
public final class DirectoryRemoval: Sendable {
    public let path: String
    public init(_ path: String) { self.path = path }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}
