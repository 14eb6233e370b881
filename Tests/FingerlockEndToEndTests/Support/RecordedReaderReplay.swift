import FingerlockCLITestSupport
import Foundation

/// libfprint's recording of a real reader (its `tests/<driver>/custom.pcapng`, v1.94.5), cut and
/// rewritten into what `fingerlock enroll` and `fingerlock verify` exchange with it, for a print whose
/// user id is fingerlock's. What differs between readers (which packets each command replays, how a
/// message is numbered and where the user id travels) is the `Driver`'s.
///
/// Each recording is libfprint's test of its driver, for a print without username, finger or date
/// (``ReplayDriver/recordedUserID``). fingerlock opens the reader for each command and closes it
/// again, so a replay is the open, the command's own exchange and (where it sends something) the close.
struct RecordedReaderReplay<Driver: ReplayDriver> {
    let recording: USBCapture

    /// Checks the packets ``ReplayDriver/landmarks`` names, so another recording fails here, loudly.
    init(_ recording: USBCapture) throws {
        self.recording = recording
        for (index, message) in Driver.landmarks {
            guard recording.packets.count > index, Driver.message(in: recording.packets[index]) == message else {
                throw UnexpectedRecording(
                    description: "packet \(index) is not \(Driver.name) message \(message): another recording?")
            }
        }
    }

    /// `fingerlock enroll`.
    func enrollment(userID: [UInt8]) throws -> USBCapture {
        try replay(.enrollment, userID: userID)
    }

    /// `fingerlock verify`; with `printIsGone`, the reader answers that it no longer stores the print.
    func verification(userID: [UInt8], printIsGone: Bool = false) throws -> USBCapture {
        try replay(.verification(printIsGone: printIsGone), userID: userID)
    }

    func replay(_ phase: ReplayPhase, userID: [UInt8]) throws -> USBCapture {
        var driver = try Driver(recording: recording, userID: userID, phase: phase)
        return recording.replay(Driver.packets(for: phase)) { index, packet in driver.rewrite(index, packet) }
    }
}

/// A fingerlock command a replay stands for.
enum ReplayPhase: Equatable {
    case enrollment
    /// With `printIsGone`, the reader says it has no such print (a driver that cannot say so throws).
    case verification(printIsGone: Bool)
}

/// One driver's part of a ``RecordedReaderReplay``: its cut of the recording and its messages.
protocol ReplayDriver {
    /// libfprint's name for the driver (the directory of its recording).
    static var name: String { get }
    /// Packets of the recording and the message each carries, by what libfprint's test did.
    static var landmarks: [(packet: Int, message: UInt8)] { get }
    /// The id of the driver's message in `packet`, nil when it carries none.
    static func message(in packet: USBPacket) -> UInt8?
    /// The packets of the recording `phase` replays, in order.
    static func packets(for phase: ReplayPhase) -> [ClosedRange<Int>]

    /// The rewriting of one replay: a new process numbers its messages from the start again.
    init(recording: USBCapture, userID: [UInt8], phase: ReplayPhase) throws
    /// The data a bulk transfer carries in the replay, nil to keep the recorded data.
    mutating func rewrite(_ index: Int, _ packet: USBPacket) -> [UInt8]?
}

extension ReplayDriver {
    /// The id libfprint generated in the recordings: no date, finger 0, random 0 (`FP_DEVICE_EMULATION`), "nobody".
    static var recordedUserID: [UInt8] { Array("FP1-00000000-0-00000000-nobody".utf8) }
}

struct UnexpectedRecording: Error, CustomStringConvertible {
    var description: String
}
