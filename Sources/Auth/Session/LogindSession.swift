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
        self.id = id
        var text = text
        (isRemote, service, remoteHost) = text.withUTF8(Self.parse)
    }

    /// By bytes, not `Character`s: this is read at every unlock.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (remote: Bool, service: String?, host: String?) {
        var result: (remote: Bool, service: String?, host: String?) = (false, nil, nil)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = line[..<equals]
            let value = line[(equals + 1)...]
            if key.elementsEqual("REMOTE".utf8) {
                result.remote = value.elementsEqual("1".utf8)
            } else if key.elementsEqual("SERVICE".utf8), !value.isEmpty {
                result.service = String(decoding: value, as: UTF8.self)
            } else if key.elementsEqual("REMOTE_HOST".utf8), !value.isEmpty {
                result.host = String(decoding: value, as: UTF8.self)
            }
        }
        return result
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
        let (prefix, suffix) = ("session-".utf8, ".scope".utf8)
        for component in text.utf8.split(whereSeparator: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\n") })
        where component.starts(with: prefix) && component.reversed().starts(with: suffix.reversed()) && component.count > prefix.count + suffix.count
        {
            let id = String(decoding: component.dropFirst(prefix.count).dropLast(suffix.count), as: UTF8.self)
            if isValidID(id) { return id }
        }
        return nil
    }
}
