public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Standard input, injected so tests can hand in their own.
public protocol InputSource: Sendable {
    var isTerminal: Bool { get }
    func readAll() throws -> Data
    /// Everything, or nil when there is more than `limit` bytes; never reads more than one byte past it.
    func readAll(limit: Int) throws -> Data?
}

public struct FileDescriptorInput: InputSource {
    let fd: Int32
    public init(fd: Int32) { self.fd = fd }
    public static var standardInput: FileDescriptorInput { FileDescriptorInput(fd: STDIN_FILENO) }

    public var isTerminal: Bool { isatty(fd) == 1 }

    public func readAll() throws -> Data {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CLIError(.dataError, "Cannot read stdin: \(String(cString: strerror(errno))).")
            }
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    public func readAll(limit: Int) throws -> Data? {
        do {
            guard case .complete(let bytes) = try BoundedRead.bytes(from: fd, limit: limit) else { return nil }
            return Data(bytes)
        } catch {
            throw CLIError(.dataError, "Cannot read stdin: \(error.reason).")
        }
    }
}
