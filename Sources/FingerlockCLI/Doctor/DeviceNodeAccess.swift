#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Whether this process may open a device node for reading and writing, as libusb must.
public enum NodeAccess: Equatable, Sendable {
    case granted
    case denied
    case missing
    case failed(String)
}

/// Decides access to a device node. The real one asks the kernel; tests inject denials, since CI
/// runs as root and root is never denied.
public protocol DeviceNodeAccess: Sendable {
    func check(_ path: String) -> NodeAccess
}

/// Asks the kernel with access(2), R_OK|W_OK. Not the mode bits: logind's uaccess grants access
/// through an ACL, which only the kernel's own check sees.
public struct KernelDeviceNodeAccess: DeviceNodeAccess {
    public init() {}

    public func check(_ path: String) -> NodeAccess {
        if access(path, R_OK | W_OK) == 0 { return .granted }
        let error = errno
        switch error {
        case EACCES, EPERM, EROFS: return .denied
        case ENOENT, ENOTDIR: return .missing
        default: return .failed(String(cString: strerror(error)))
        }
    }
}

/// The owner group and permission bits of a device node, to suggest a group that would help.
struct NodeOwnership: Equatable, Sendable {
    var groupID: UInt32
    var mode: UInt32

    /// Whether members of the node's group may read and write it.
    var groupCanReadWrite: Bool { mode & 0o060 == 0o060 }

    static func of(_ path: String) -> NodeOwnership? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return NodeOwnership(groupID: info.st_gid, mode: UInt32(info.st_mode) & 0o7777)
    }
}
