import Foundation

/// libfprint's recording of a synaptics reader (its `tests/synaptics/custom.pcapng`, v1.94.5), cut and
/// rewritten into what `fingerlock enroll` and `fingerlock verify` exchange with it, for a print whose
/// user id is fingerlock's.
///
/// The recording: open, clear the storage, enroll, verify (with a suspend and resume in the middle),
/// delete, close, for a print without username, finger or date. fingerlock opens the reader for each
/// command and closes it again, so an enrollment is the open, the enroll and the close, a verification
/// the open, the verify and the close. Commands carry a sequence number the host counts in each
/// process; the answers repeat it. The user id travels in the enroll and verify commands and comes back
/// in their answers.
struct SynapticsReplay {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    let recording: USBCapture

    /// The id libfprint generated in the recording: no date, finger 0, random 0 (`FP_DEVICE_EMULATION`), "nobody".
    static let recordedUserID = Array("FP1-00000000-0-00000000-nobody".utf8)

    /// Packets of the recording, by what libfprint's test did (checked against the messages in ``init(_:)``).
    static let open = 0...17
    static let enroll = 34...271
    /// The verify without the interrupt transfer the suspend cancelled (276, 277).
    static let verify = [272...275, 278...301]
    static let close = 306...309
    /// The chip's answer that the finger matched the print.
    static let verifyAnswer = 301

    static let enrollCommand: UInt8 = 0x51
    static let verifyCommand: UInt8 = 0x65
    static let verifyOK: UInt8 = 0x68
    static let verifyFail: UInt8 = 0x67
    static let powerDownCommand: UInt8 = 0xA1
    /// `BMKT_FP_DATABASE_NO_RECORD_EXISTS`: the chip has no print by the name it was given.
    static let noRecord: UInt16 = 504

    init(_ recording: USBCapture) throws {
        self.recording = recording
        let expected: [(Int, UInt8)] = [
            (34, Self.enrollCommand), (272, Self.verifyCommand), (Self.verifyAnswer, Self.verifyOK),
            (306, Self.powerDownCommand),
        ]
        for (index, message) in expected {
            guard recording.packets.count > index, let parsed = SynapticsMessage(recording.packets[index]),
                parsed.id == message
            else {
                throw Unexpected(description: "packet \(index) is not synaptics message \(message): another recording?")
            }
        }
    }

    /// `fingerlock enroll`.
    func enrollment(userID: [UInt8]) -> USBCapture {
        rewritten([Self.open, Self.enroll, Self.close], userID: userID, printIsGone: false)
    }

    /// `fingerlock verify`; with `printIsGone`, the chip answers that it has no print by that name (504).
    func verification(userID: [UInt8], printIsGone: Bool) -> USBCapture {
        rewritten([Self.open] + Self.verify + [Self.close], userID: userID, printIsGone: printIsGone)
    }

    private func rewritten(_ ranges: [ClosedRange<Int>], userID: [UInt8], printIsGone: Bool) -> USBCapture {
        var sequence: UInt8 = 0
        var renumbered: [UInt8: UInt8] = [:]
        return recording.replay(ranges) { index, packet in
            guard var message = SynapticsMessage(packet) else { return nil }
            if packet.isOut {
                sequence = max(1, sequence &+ 1)
                renumbered[message.sequence] = sequence
                message.sequence = sequence
            } else if message.sequence != 0 {
                // 0 marks the chip's own events (finger on, finger off).
                message.sequence = renumbered[message.sequence] ?? message.sequence
            }
            if let start = message.payload.start(of: Self.recordedUserID) {
                message.payload.replaceSubrange(start..<(start + Self.recordedUserID.count), with: userID)
            }
            if index == Self.verifyAnswer && printIsGone {
                message.id = Self.verifyFail
                message.payload = [UInt8(Self.noRecord >> 8), UInt8(Self.noRecord & 0xFF)]
            }
            return message.bytes
        }
    }
}

/// One synaptics message: to the reader `a7`, from it `00 00`, then `fe`, the sequence number, the
/// message id, the payload's length and the payload.
struct SynapticsMessage {
    var prefix: [UInt8]
    var sequence: UInt8
    var id: UInt8
    var payload: [UInt8]

    init?(_ packet: USBPacket) {
        let data = packet.data
        let prefix: [UInt8] = packet.isOut ? [0xA7] : [0, 0]
        let start = prefix.count
        guard data.count >= start + 4, Array(data[0..<start]) == prefix, data[start] == 0xFE,
            data.count >= start + 4 + Int(data[start + 3])
        else { return nil }
        self.prefix = prefix
        sequence = data[start + 1]
        id = data[start + 2]
        payload = Array(data[(start + 4)..<(start + 4 + Int(data[start + 3]))])
    }

    var bytes: [UInt8] { prefix + [0xFE, sequence, id, UInt8(payload.count)] + payload }
}
