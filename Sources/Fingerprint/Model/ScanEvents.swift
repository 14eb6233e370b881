/// Why the reader asks for another touch. Not a failure: the scan or stage did not count.
public enum RetryReason: String, Codable, Sendable, CaseIterable {
    case general
    case tooShort = "short"
    case centerFinger = "center"
    case removeFinger = "remove"

    /// The hint to show the user.
    public var hint: String {
        switch self {
        case .general: "The scan did not work, try again."
        case .tooShort: "The swipe was too short, try again."
        case .centerFinger: "Center your finger on the sensor and try again."
        case .removeFinger: "Lift your finger and touch the sensor again."
        }
    }
}

/// What happens while a finger is being enrolled.
public enum EnrollEvent: Sendable, Equatable {
    /// The reader is open and waits for the first touch; it asks for `stages` touches, a count some
    /// drivers only decide when the device opens (and for some it is a maximum: see
    /// ``ReaderInfo/enrollStagesAreMaximum``).
    case opened(stages: Int)
    /// Stage `completed` of `total` has been captured; `total` is what the driver says now.
    case stage(completed: Int, total: Int)
    /// The last touch did not count; the hint says what to do.
    case retry(RetryReason)
    /// Enrollment finished; this is the print to keep.
    case enrolled(EnrolledPrint)
    /// Not from a reader: fingerlockd's reader is held by another user's request, which a touch now
    /// would go to; this enrollment waits its turn.
    case waitingForOtherUser(OtherUsersRequest)

    /// The stream a reader's `enroll` returns: `enroll` runs in a task of its own, reports progress
    /// through the continuation, and its print ends the stream as `.enrolled`; an error ends it with
    /// that error. The consumer stopping (or its task being cancelled) cancels the enrollment.
    static func stream(
        _ enroll: @escaping @Sendable (AsyncThrowingStream<EnrollEvent, any Error>.Continuation) async throws -> EnrolledPrint
    ) -> AsyncThrowingStream<EnrollEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: EnrollEvent.self)
        let task = Task {
            do {
                continuation.yield(.enrolled(try await enroll(continuation)))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// The result of one touch checked against one or more enrolled prints.
public enum ScanResult: Sendable, Equatable {
    /// The touch matched this print.
    case match(EnrolledPrint)
    /// The finger was read, and it matched none of the prints.
    case noMatch
    /// The touch could not be read; nothing was decided.
    case retry(RetryReason)
    /// The reader answered that a print of the scan is not in its own storage (libfprint's
    /// DATA_NOT_FOUND). Drivers say this for two things: a finger that is simply not stored (a plain
    /// no-match) and a print the chip lost (wiped by another program, a firmware update, a clear).
    /// Only the reader's list (``FingerprintReader/storedPrints(known:)``) tells them apart.
    case notInReaderStorage
}

/// What another user's request that holds a shared reader (fingerlockd's) is doing, while a request
/// waits its turn: a touch made now would go to it.
public enum OtherUsersRequest: String, Sendable, Equatable {
    case enrollment, scan
}
