/// The fields of `/proc/PID/stat` the detector uses.
struct ProcessStatus: Sendable, Equatable {
    var processID: Int32
    /// The kernel's short name (`comm`, at most 15 bytes): the executable's name unless the process
    /// renamed itself, as tmux does (`tmux: server`, `tmux: client`).
    var name: String
    var parentID: Int32
    /// The controlling terminal's device number, 0 for none.
    var terminal: Int32

    /// Parses `PID (NAME) STATE PPID PGRP SESSION TTY_NR …`. The name may hold spaces and
    /// parentheses, so it runs to the last `)`.
    init?(_ text: String) {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close,
            let pid = text[..<open].split(separator: " ").first.flatMap({ Int32($0) })
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 5, let parent = Int32(fields[1]), let terminal = Int32(fields[4]) else { return nil }
        processID = pid
        name = String(text[text.index(after: open)..<close])
        parentID = parent
        self.terminal = terminal
    }

    /// The controlling terminal as utmp names it (`pts/3`, `tty2`), or nil for none or another kind.
    var terminalLine: String? { Self.line(ofDevice: terminal) }

    /// Decodes the kernel's device number encoding (major in bits 8–19, minor in bits 0–7 and
    /// 20–31): Unix98 pseudo-terminals have majors 136–143, virtual consoles major 4 below 64.
    static func line(ofDevice device: Int32) -> String? {
        let bits = UInt32(bitPattern: device)
        let major = (bits >> 8) & 0xfff
        let minor = (bits & 0xff) | ((bits >> 12) & 0xfff00)
        switch major {
        case 136...143: return "pts/\((major - 136) * 256 + minor)"
        case 4 where (1..<64).contains(minor): return "tty\(minor)"
        default: return nil
        }
    }
}
