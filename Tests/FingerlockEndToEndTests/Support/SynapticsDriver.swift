import FingerlockCLITestSupport
import Foundation

/// synaptics' part of a ``RecordedReaderReplay`` (libfprint's `tests/synaptics/custom.pcapng`).
///
/// The recording: open, clear the storage, enroll, verify (with a suspend and resume in the middle),
/// delete, close. An enrollment is the open, the enroll and the close, a verification the open, the
/// verify and the close. Commands carry a sequence number the host counts in each process; the answers
/// repeat it. The user id travels in the enroll and verify commands and comes back in their answers.
struct SynapticsDriver: ReplayDriver {
    static let name = "synaptics"

    /// Packets of the recording, by what libfprint's test did.
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

    static var landmarks: [(packet: Int, message: UInt8)] {
        [(34, enrollCommand), (272, verifyCommand), (verifyAnswer, verifyOK), (306, powerDownCommand)]
    }

    static func message(in packet: USBPacket) -> UInt8? { SynapticsMessage(packet)?.id }

    static func packets(for phase: ReplayPhase) -> [ClosedRange<Int>] {
        phase == .enrollment ? [open, enroll, close] : [open] + verify + [close]
    }

    let userID: [UInt8]
    /// The chip answers the verification that it has no print by that name (504).
    let printIsGone: Bool
    var sequence: UInt8 = 0
    var renumbered: [UInt8: UInt8] = [:]

    init(recording: USBCapture, userID: [UInt8], phase: ReplayPhase) {
        self.userID = userID
        printIsGone = phase == .verification(printIsGone: true)
    }

    mutating func rewrite(_ index: Int, _ packet: USBPacket) -> [UInt8]? {
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
