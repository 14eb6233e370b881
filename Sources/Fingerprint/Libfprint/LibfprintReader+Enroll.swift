internal import CFprint

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension LibfprintReader {
    func runEnroll(
        _ finger: Finger, username: String, timeout: Duration,
        events: AsyncThrowingStream<EnrollEvent, any Error>.Continuation
    ) async throws -> EnrolledPrint {
        let device = handle.device
        let identity = info.identity
        let date = context.now()
        let template = try await context.perform(driver: info.driver, timeout: timeout) { control, cancellable in
            try Self.withOpenDevice(device.pointer, cancellable) { device in
                // Some drivers decide the count in open (elanmoc), so it is read now, not at enumeration.
                events.yield(.opened(stages: Int(libfprint.fp_device_get_nr_enroll_stages(device))))
                let sink = EnrollProgressSink(events: events, control: control)
                let draft = PrintTemplate.draft(for: device, finger: finger, username: username, date: date)
                let enrolled = try withExtendedLifetime(sink) {
                    try withGError { error in
                        // Sinks the floating draft.
                        libfprint.fp_device_enroll_sync(
                            device, draft, cancellable, enrollProgress, Unmanaged.passUnretained(sink).toOpaque(),
                            error)
                    }
                }
                guard let enrolled else {
                    throw FingerprintError(.deviceError, "The fingerprint reader returned no print.")
                }
                defer { libfprint.g_object_unref(UnsafeMutableRawPointer(enrolled)) }
                return try PrintTemplate.serialize(enrolled)
            }
        }
        return EnrolledPrint(finger: finger, reader: identity, template: template, enrolled: date)
    }
}

/// Receives libfprint's enroll progress on the libfprint thread and forwards it as events.
final class EnrollProgressSink: Sendable {
    let events: AsyncThrowingStream<EnrollEvent, any Error>.Continuation
    let control: OperationControl

    init(events: AsyncThrowingStream<EnrollEvent, any Error>.Continuation, control: OperationControl) {
        self.events = events
        self.control = control
    }

    /// `stages` is the driver's count at this moment: a driver may change it while enrolling.
    func report(completed: Int, stages: Int, retryCode: Int?) {
        // Every touch, counted or not, restarts the wait for the next one.
        control.rearm()
        if let retryCode {
            events.yield(.retry(LibfprintErrorMapping.retryReason(code: retryCode)))
        } else {
            events.yield(.stage(completed: completed, total: stages))
        }
    }
}

/// libfprint's `FpEnrollProgress`; `userData` is an unretained ``EnrollProgressSink`` kept alive by the caller.
private let enrollProgress: FpEnrollProgress = { device, completed, _, userData, error in
    guard let userData, let device else { return }
    let sink = Unmanaged<EnrollProgressSink>.fromOpaque(userData).takeUnretainedValue()
    // The error is borrowed (transfer none) and always in the FpDeviceRetry domain; only its code is read.
    sink.report(
        completed: Int(completed), stages: Int(libfprint.fp_device_get_nr_enroll_stages(device)),
        retryCode: error.map { Int($0.pointee.code) })
}
