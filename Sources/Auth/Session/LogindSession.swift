/// What logind recorded about a login session in `/run/systemd/sessions/ID`. The file is read
/// directly rather than over D-Bus, which would be a dependency and a round trip at every unlock;
/// its `KEY=value` lines have been stable for a decade, and an unreadable or unfamiliar file is
/// only "no evidence".
struct LogindSession: Sendable, Equatable {
    var id: String
    /// logind's `Remote` property: the PAM service gave a remote host that is not this machine.
    var isRemote: Bool
    /// The PAM service that opened the session (`sshd`, `login`, `gdm-password`).
    var service: String?
    var remoteHost: String?

    init(id: String, text: String) {
        var values: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals]] = line[line.index(after: equals)...]
        }
        self.id = id
        isRemote = values["REMOTE"] == "1"
        service = values["SERVICE"].flatMap { $0.isEmpty ? nil : String($0) }
        remoteHost = values["REMOTE_HOST"].flatMap { $0.isEmpty ? nil : String($0) }
    }

    /// Remote by logind's own flag, or opened by an SSH daemon: `ssh localhost` (or a tunnel or
    /// jump host arriving through localhost) has `REMOTE=0`, yet whoever typed it need not be at
    /// the reader.
    var isRemoteLogin: Bool {
        isRemote || service.map(RemoteSessionDetector.remoteServerNames.contains) == true
    }

    /// Session ids are short alphanumeric strings (`3`, `c2`); anything else is not looked up,
    /// so a crafted cgroup name cannot steer the read out of `/run/systemd/sessions`.
    static func isValidID(_ id: some StringProtocol) -> Bool {
        !id.isEmpty && id.count <= 32 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// The session named by a `session-ID.scope` in `/proc/PID/cgroup` (cgroup v1 or v2), if any.
    static func id(inControlGroups text: String) -> String? {
        for line in text.split(separator: "\n") {
            for component in line.split(separator: "/") where component.hasPrefix("session-") && component.hasSuffix(".scope") {
                let id = component.dropFirst("session-".count).dropLast(".scope".count)
                if isValidID(id) { return String(id) }
            }
        }
        return nil
    }
}
