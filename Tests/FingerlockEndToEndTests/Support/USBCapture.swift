import FingerlockCLITestSupport
import Foundation

/// A pcapng recording of a USB device's traffic (usbmon's `DLT_USB_LINUX_MMAPPED` packets), the form
/// libfprint's driver tests keep and umockdev replays: read, edited packet by packet, written back.
///
/// umockdev replays strictly in order and hands a URB the recorded answer only when what the program
/// submits equals the recorded submission byte for byte, so a replay for another user id or another
/// sequence of operations must be rewritten to say exactly what the program will send.
struct USBCapture {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    /// The blocks before and between the packets (section header, interface description), kept as recorded.
    var head: [UInt8]
    var packets: [USBPacket]

    init(head: [UInt8], packets: [USBPacket]) {
        self.head = head
        self.packets = packets
    }

    init(contentsOf url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        var head: [UInt8] = []
        var packets: [USBPacket] = []
        var offset = 0
        while offset + 12 <= bytes.count {
            let type = bytes.le32(at: offset)
            let length = Int(bytes.le32(at: offset + 4))
            guard length >= 12, length % 4 == 0, offset + length <= bytes.count else {
                throw Malformed(description: "\(url.lastPathComponent): a block at \(offset) runs past the end")
            }
            if type == 0x0A0D_0D0A, bytes.le32(at: offset + 8) != 0x1A2B_3C4D {
                throw Malformed(description: "\(url.lastPathComponent) is not little-endian")
            }
            if type == 6 {
                // Enhanced packet block: interface, timestamp (2 words), captured and original length.
                let captured = Int(bytes.le32(at: offset + 20))
                guard 28 + captured <= length else { throw Malformed(description: "a packet at \(offset) is cut") }
                packets.append(
                    USBPacket(
                        bytes: Array(bytes[(offset + 28)..<(offset + 28 + captured)]),
                        timestamp: Array(bytes[(offset + 12)..<(offset + 20)])))
            } else {
                head += bytes[offset..<(offset + length)]
            }
            offset += length
        }
        self.head = head
        self.packets = packets
    }

    func write(to url: URL) throws {
        var out = head
        for packet in packets {
            let padding = (4 - packet.bytes.count % 4) % 4
            let length = UInt32(28 + packet.bytes.count + padding + 4)
            out.appendLE32(6)
            out.appendLE32(length)
            out.appendLE32(0)
            out += packet.timestamp
            out.appendLE32(UInt32(packet.bytes.count))
            out.appendLE32(UInt32(packet.bytes.count))
            out += packet.bytes
            out += [UInt8](repeating: 0, count: padding)
            out.appendLE32(length)
        }
        try Data(out).write(to: url)
    }
}

/// One usbmon record: a 64-byte header, then the data captured.
struct USBPacket {
    var bytes: [UInt8]
    var timestamp: [UInt8]

    /// The URB's id, shared by its submission and its completion.
    var id: UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[$1]) << (8 * $1) } }
    var isSubmission: Bool { bytes[8] == UInt8(ascii: "S") }
    var isBulk: Bool { bytes[9] == 3 }
    var endpoint: UInt8 { bytes[10] }
    var isOut: Bool { endpoint & 0x80 == 0 }
    var dataLength: Int { Int(bytes.le32(at: 36)) }
    var data: [UInt8] { Array(bytes[64..<(64 + dataLength)]) }

    /// Replaces the data, and the URB's length with its size (what a submission sends, or a completion received).
    mutating func setData(_ data: [UInt8]) {
        bytes = Array(bytes[0..<64]) + data
        bytes.setLE32(UInt32(data.count), at: 32)
        bytes.setLE32(UInt32(data.count), at: 36)
    }

    /// The length a completion reports without carrying the data (an OUT transfer's).
    mutating func setURBLength(_ length: Int) {
        bytes.setLE32(UInt32(length), at: 32)
    }
}

extension [UInt8] {
    func le32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(self[offset + $1]) << (8 * $1) }
    }

    func le16(at offset: Int) -> Int {
        Int(self[offset]) | Int(self[offset + 1]) << 8
    }

    mutating func setLE32(_ value: UInt32, at offset: Int) {
        for byte in 0..<4 { self[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
    }

    mutating func appendLE32(_ value: UInt32) {
        for byte in 0..<4 { append(UInt8(truncatingIfNeeded: value >> (8 * byte))) }
    }

    mutating func appendLE16(_ value: Int) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// The first index of `needle`, if it occurs.
    func start(of needle: [UInt8]) -> Int? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        return (0...(count - needle.count)).first { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}

extension USBCapture {
    /// The packets at `ranges`, in order, with the data of each bulk transfer that carries some (what
    /// an OUT submission sends, what an IN completion receives) passed through `rewrite` (nil keeps
    /// it); the completion of a rewritten OUT transfer reports its new length, as the kernel would.
    func replay(_ ranges: [ClosedRange<Int>], rewrite: (_ index: Int, _ packet: USBPacket) throws -> [UInt8]?) rethrows
        -> USBCapture
    {
        var sent: [UInt64: Int] = [:]
        var packets: [USBPacket] = []
        for index in ranges.joined() {
            var packet = self.packets[index]
            if packet.isBulk && packet.dataLength > 0, let data = try rewrite(index, packet) {
                packet.setData(data)
                if packet.isOut && packet.isSubmission { sent[packet.id] = data.count }
            } else if packet.isBulk && packet.isOut && !packet.isSubmission, let length = sent[packet.id] {
                packet.setURBLength(length)
            }
            packets.append(packet)
        }
        return USBCapture(head: head, packets: packets)
    }
}
