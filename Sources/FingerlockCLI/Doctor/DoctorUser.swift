#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Who is running `doctor`: their name, groups, and how group ids are named on this system.
public struct DoctorUser: Sendable {
    public var uid: UInt32
    public var name: String
    /// The process's groups (primary and supplementary), as the kernel checks them now. A group
    /// added with usermod counts only after the user logs in again.
    public var groupIDs: Set<UInt32>
    public var groupName: @Sendable (UInt32) -> String?

    public init(uid: UInt32, name: String, groupIDs: Set<UInt32>, groupName: @escaping @Sendable (UInt32) -> String?) {
        self.uid = uid
        self.name = name
        self.groupIDs = groupIDs
        self.groupName = groupName
    }

    /// The calling process's user, from the kernel and the system's account database.
    public static func current(environment: [String: String]) -> DoctorUser {
        let uid = getuid()
        var groups: Set<UInt32> = [getgid(), getegid()]
        let count = getgroups(0, nil)
        if count > 0 {
            var buffer = [gid_t](repeating: 0, count: Int(count))
            let got = getgroups(count, &buffer)
            if got > 0 { groups.formUnion(buffer.prefix(Int(got))) }
        }
        let name = accountName(uid) ?? environment["USER"] ?? String(uid)
        return DoctorUser(uid: uid, name: name, groupIDs: groups, groupName: { groupName($0) })
    }

    private static func accountName(_ uid: uid_t) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name
        else { return nil }
        return String(cString: name)
    }

    private static func groupName(_ gid: UInt32) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name
        else { return nil }
        return String(cString: name)
    }
}
