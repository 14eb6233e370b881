import FingerlockCLITestSupport
import Foundation

/// goodixmoc's part of a ``RecordedReaderReplay`` (libfprint's `tests/goodixmoc/custom.pcapng`).
///
/// The recording: open, clear the storage, enroll, list, verify, identify, delete, close. Closing
/// sends nothing, so an enrollment is the open then the enroll, a verification the open then the
/// verify. Every command carries a sequence number the host counts from 0 in each process and two
/// checksums, so the commands are numbered again and re-sealed. The user id travels in the commit of
/// the enrollment and comes back in the chip's template list and in a match: those are rewritten.
struct GoodixmocDriver: ReplayDriver {
    static let name = "goodixmoc"

    /// Packets of the recording, by what libfprint's test did.
    static let open = 0...51
    static let enroll = 62...541
    static let verify = 552...591
    /// The commit of the enrollment, whose fingerprint id is the one the chip stores.
    static let commit = 522

    static let commitCommand: UInt8 = 0xA4
    static let identifyCommand: UInt8 = 0xA5
    static let listCommand: UInt8 = 0xA6
    static let shieldOnCommand: UInt8 = 0xE0

    static var landmarks: [(packet: Int, message: UInt8)] {
        [
            (42, listCommand), (62, shieldOnCommand), (commit, commitCommand), (552, shieldOnCommand),
            (572, identifyCommand),
        ]
    }

    static func message(in packet: USBPacket) -> UInt8? { GoodixPackage(packet.data)?.command }

    static func packets(for phase: ReplayPhase) -> [ClosedRange<Int>] {
        phase == .enrollment ? [open, enroll] : [open, verify]
    }

    /// The fingerprint id the chip stores for the print (length, then the id), with the user id in it.
    let stored: [UInt8]
    /// Whether the chip lists the print when the reader opens: in a verification it does, among those
    /// it stores (a list it cannot parse makes libfprint wipe the chip), before it matches the finger
    /// and names the print; in an enrollment it lists what it held before.
    let listsThePrint: Bool
    var sequence: UInt8 = 0

    init(recording: USBCapture, userID: [UInt8], phase: ReplayPhase) throws {
        guard phase != .verification(printIsGone: true) else {
            throw UnexpectedRecording(description: "goodixmoc's recording has no verification of a print the chip lost")
        }
        guard let commit = GoodixPackage(recording.packets[Self.commit].data) else {
            throw UnexpectedRecording(description: "the commit cannot be read")
        }
        stored = try Self.replacingUserID(in: Array(commit.body.dropFirst(2)), with: userID)
        listsThePrint = phase != .enrollment
    }

    mutating func rewrite(_ index: Int, _ packet: USBPacket) -> [UInt8]? {
        guard var package = GoodixPackage(packet.data) else { return nil }
        if packet.isOut {
            package.sequence = sequence
            sequence &+= 1
            if package.command == Self.commitCommand {
                package.body = Self.lengthPrefixed(stored)
            }
            return package.bytes()
        }
        if package.command == Self.identifyCommand && package.body.first == 0 {
            // A match: result, reject detail, score, study (8 bytes), then the print's id.
            let size = package.body.le16(at: 8)
            package.body = Array(package.body[0..<8]) + Self.lengthPrefixed(stored) + package.body[(10 + size)...]
        } else if package.command == Self.listCommand && listsThePrint && package.body.first == 0 {
            // Result, count, then each print's id.
            package.body[1] += 1
            package.body += Self.lengthPrefixed(stored)
        } else {
            return nil
        }
        return package.bytes(paddedTo: 64)
    }

    static func lengthPrefixed(_ id: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE16(id.count)
        return bytes + id
    }

    /// A fingerprint id (`0x43`, type, finger, pad, account id, template id, then the user id with its
    /// length byte, then a terminating 0) with `userID` in place of the recorded one.
    static func replacingUserID(in id: [UInt8], with userID: [UInt8]) throws -> [UInt8] {
        guard id.count > 69, id[0] == 0x43, id[68] == recordedUserID.count,
            Array(id[69..<(69 + recordedUserID.count)]) == recordedUserID
        else { throw UnexpectedRecording(description: "the commit does not carry the recorded user id") }
        return Array(id[0..<68]) + [UInt8(userID.count)] + userID + id[(69 + recordedUserID.count)...]
    }
}

/// One goodixmoc message: an 8-byte header (command, subcommand, package number, sequence, length,
/// CRC-8 of the first six bytes and its complement), the body, a CRC-32 of header and body.
struct GoodixPackage {
    var command: UInt8
    var subcommand: UInt8
    var sequence: UInt8
    var body: [UInt8]

    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 12 else { return nil }
        let length = bytes.le16(at: 4)
        guard length >= 4, 8 + length <= bytes.count else { return nil }
        command = bytes[0]
        subcommand = bytes[1]
        sequence = bytes[3]
        body = Array(bytes[8..<(8 + length - 4)])
    }

    /// The message as sent, zero-padded to a multiple of `paddedTo` (the chip answers in whole USB packets).
    func bytes(paddedTo block: Int = 1) -> [UInt8] {
        var header: [UInt8] = [command, subcommand, 0, sequence]
        header.appendLE16(body.count + 4)
        let crc8 = Self.crc8(header)
        var bytes = header + [crc8, ~crc8] + body
        bytes.appendLE32(Self.crc32(bytes))
        let padded = (bytes.count + block - 1) / block * block
        return bytes + [UInt8](repeating: 0, count: padded - bytes.count)
    }

    /// The driver's CRC-8 (polynomial 0x07, inverted).
    static func crc8(_ bytes: [UInt8]) -> UInt8 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 8
            for _ in 0..<8 {
                if crc & 0x8000 != 0 { crc ^= 0x1070 << 3 }
                crc <<= 1
            }
        }
        return ~UInt8(truncatingIfNeeded: crc >> 8)
    }

    /// CRC-32 as zlib computes it (the driver's table is the same reflected polynomial).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
