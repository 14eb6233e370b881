import Foundation

/// libfprint's recording of a goodixmoc reader (its `tests/goodixmoc/custom.pcapng`, v1.94.5), cut and
/// rewritten into what `fingerlock enroll` and `fingerlock verify` exchange with the chip, for a print
/// whose user id is fingerlock's.
///
/// The recording: open, clear the storage, enroll, list, verify, identify, delete, close, for a print
/// without username, finger or date. fingerlock opens the reader for each command and closes it again
/// (closing sends nothing here), so an enrollment is the open then the enroll, a verification the open
/// then the verify. Every command carries a sequence number the host counts from 0 in each process and
/// two checksums, so the commands are numbered again and re-sealed. The user id travels in the commit
/// of the enrollment and comes back in the chip's template list and in a match: those are rewritten.
struct GoodixmocReplay {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    let recording: USBCapture

    /// The id libfprint generated in the recording: no date, finger 0, random 0 (`FP_DEVICE_EMULATION`), "nobody".
    static let recordedUserID = Array("FP1-00000000-0-00000000-nobody".utf8)

    /// Packets of the recording, by what libfprint's test did (checked against the commands in ``init(_:)``).
    static let open = 0...51
    static let enroll = 62...541
    static let verify = 552...591
    /// The commit of the enrollment, whose fingerprint id is the one the chip stores.
    static let commit = 522

    static let commitCommand: UInt8 = 0xA4
    static let identifyCommand: UInt8 = 0xA5
    static let listCommand: UInt8 = 0xA6
    static let shieldOnCommand: UInt8 = 0xE0

    init(_ recording: USBCapture) throws {
        self.recording = recording
        let expected: [(Int, UInt8)] = [
            (42, Self.listCommand), (62, Self.shieldOnCommand), (Self.commit, Self.commitCommand),
            (552, Self.shieldOnCommand), (572, Self.identifyCommand),
        ]
        for (index, command) in expected {
            guard recording.packets.count > index, let package = GoodixPackage(recording.packets[index].data),
                package.command == command
            else {
                throw Unexpected(description: "packet \(index) is not goodixmoc command \(command): another recording?")
            }
        }
    }

    /// The fingerprint id the chip stores for a print (length, then the id), with `userID` in it.
    func storedID(userID: [UInt8]) throws -> [UInt8] {
        guard let commit = GoodixPackage(recording.packets[Self.commit].data) else {
            throw Unexpected(description: "the commit cannot be read")
        }
        return try Self.replacingUserID(in: Array(commit.body.dropFirst(2)), with: userID)
    }

    /// `fingerlock enroll`: the chip lists what it held before, then enrolls the print.
    func enrollment(userID: [UInt8]) throws -> USBCapture {
        try rewritten([Self.open, Self.enroll], userID: userID, listsThePrint: false)
    }

    /// `fingerlock verify`: the chip lists the print among those it stores when the reader opens (a
    /// list it cannot parse makes libfprint wipe the chip), then matches the finger and names the print.
    func verification(userID: [UInt8]) throws -> USBCapture {
        try rewritten([Self.open, Self.verify], userID: userID, listsThePrint: true)
    }

    private func rewritten(_ ranges: [ClosedRange<Int>], userID: [UInt8], listsThePrint: Bool) throws -> USBCapture {
        let stored = try storedID(userID: userID)
        var sequence: UInt8 = 0
        return recording.replay(ranges) { _, packet in
            guard var package = GoodixPackage(packet.data) else { return nil }
            if packet.isOut {
                package.sequence = sequence
                sequence &+= 1
                if package.command == Self.commitCommand {
                    package.body = lengthPrefixed(stored)
                }
                return package.bytes()
            }
            if package.command == Self.identifyCommand && package.body.first == 0 {
                // A match: result, reject detail, score, study (8 bytes), then the print's id.
                let size = package.body.le16(at: 8)
                package.body = Array(package.body[0..<8]) + lengthPrefixed(stored) + package.body[(10 + size)...]
            } else if package.command == Self.listCommand && listsThePrint && package.body.first == 0 {
                // Result, count, then each print's id.
                package.body[1] += 1
                package.body += lengthPrefixed(stored)
            } else {
                return nil
            }
            return package.bytes(paddedTo: 64)
        }
    }

    private func lengthPrefixed(_ id: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE16(id.count)
        return bytes + id
    }

    /// A fingerprint id (`0x43`, type, finger, pad, account id, template id, then the user id with its
    /// length byte, then a terminating 0) with `userID` in place of the recorded one.
    static func replacingUserID(in id: [UInt8], with userID: [UInt8]) throws -> [UInt8] {
        guard id.count > 69, id[0] == 0x43, id[68] == recordedUserID.count,
            Array(id[69..<(69 + recordedUserID.count)]) == recordedUserID
        else { throw Unexpected(description: "the commit does not carry the recorded user id") }
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
