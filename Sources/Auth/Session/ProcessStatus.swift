/// The fields of `/proc/PID/stat` the detector uses.
struct ProcessStatus: Sendable, Equatable {
    var processID: Int32
    /// The kernel's short name (`comm`, at most 15 bytes): the executable's name unless the process
    /// renamed itself, as tmux does (`tmux: server`, `tmux: client`).
    var name: String
    var parentID: Int32
    /// The controlling terminal's device number, 0 for none.
    var terminal: Int32

    init(processID: Int32, name: String, parentID: Int32, terminal: Int32) {
        self.processID = processID
        self.name = name
        self.parentID = parentID
        self.terminal = terminal
    }

    /// Parses `PID (NAME) STATE PPID PGRP SESSION TTY_NR …`. The name may hold spaces and
    /// parentheses, so it runs to the last `)`. Works on the UTF-8 bytes: this runs for every
    /// ancestor at every unlock, and `String` indexing costs more than the file read.
    init?(_ text: String) {
        var text = text
        guard let status = text.withUTF8(Self.parse) else { return nil }
        self = status
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ProcessStatus? {
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")), let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close,
            let pid = DecimalField.parse(bytes[..<open], as: Int32.self)
        else { return nil }
        // After the name: state, parent, process group, session, terminal.
        var fields: [Slice<UnsafeBufferPointer<UInt8>>] = []
        var position = close + 1
        while fields.count < 5, position < bytes.count {
            while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: " ") { position += 1 }
            if position > start { fields.append(bytes[start..<position]) }
        }
        guard fields.count == 5, let parent = DecimalField.parse(fields[1], as: Int32.self),
            let terminal = DecimalField.parse(fields[4], as: Int32.self)
        else { return nil }
        let name = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
        return ProcessStatus(processID: pid, name: name, parentID: parent, terminal: terminal)
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
