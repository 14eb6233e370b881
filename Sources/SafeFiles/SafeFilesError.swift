/// A file-system failure, with the path and what the user can do about it.
public struct SafeFilesError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case tooOpen
        case notOwned
        case notADirectory
        case notARegularFile
        case io
        case diskFull
        case lockTimeout
        /// The file does not exist (only where the caller asked not to create it).
        case missing
        /// Something is already at a path where only a new file may be created.
        case exists
    }

    public var code: Code
    public var path: String
    public var message: String

    public init(_ code: Code, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { message }

    static func io(_ operation: String, path: String, errno: Int32) -> SafeFilesError {
        if errno == ENOSPC || errno == EDQUOT {
            return SafeFilesError(.diskFull, path: path, "Cannot \(operation) \(path): the disk is full. Nothing was changed.")
        }
        return SafeFilesError(.io, path: path, "Cannot \(operation) \(path): \(String(cString: strerror(errno))).")
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
