#if canImport(Glibc)
    import Glibc
#endif

/// The path of this process's controlling terminal, for helpers that must find it themselves: gpg
/// started by `pass` with stdin at /dev/null has no terminal to ask for a key's passphrase on unless
/// `GPG_TTY` names it (it otherwise takes stdin's).
enum ControllingTerminal {
    /// `/dev/pts/N` (or `/dev/ttyN`), from stdin, stdout or stderr when one is the terminal, else from
    /// the tty number in /proc/self/stat; nil without a controlling terminal.
    static func path() -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        close(fd)
        for standard in Int32(0)...2 where isatty(standard) == 1 {
            if let name = ttyname(standard) { return String(cString: name) }
        }
        return fromProcStat()
    }

    /// The controlling terminal's device number (field 7 of /proc/self/stat, tty_nr, encoded as
    /// `st_rdev` is); nil without one.
    static func deviceNumber() -> Int? {
        guard let file = fopen("/proc/self/stat", "re") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The command name in parentheses may hold spaces: count fields after its closing one.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 4, let number = Int(fields[4]), number != 0 else { return nil }
        return number
    }

    /// The path of the controlling terminal's device: major 136 to 143 are pseudo-terminals, 4 the consoles.
    private static func fromProcStat() -> String? {
        guard let number = deviceNumber() else { return nil }
        let major = (number >> 8) & 0xfff
        let minor = (number & 0xff) | ((number >> 12) & 0xfff00)
        if (136...143).contains(major) { return "/dev/pts/\((major - 136) * 256 + minor)" }
        if major == 4 && minor < 64 { return "/dev/tty\(minor)" }
        return nil
    }
}
