import FingerlockTestSupport
import Testing

@testable import Fingerprint

/// The mapping of every libfprint, GIO and GUsb code, with synthetic errors (CI runs as root, so a
/// real permission failure cannot happen there).
@Suite(.timed) struct LibfprintErrorMappingTests {
    typealias Code = FingerprintError.Code

    static let deviceCodes: [(DeviceErrorCode, Code)] = [
        (.general, .deviceError), (.notSupported, .notSupported), (.notOpen, .deviceError), (.alreadyOpen, .busy),
        (.busy, .busy), (.proto, .deviceError), (.dataInvalid, .invalidPrint), (.dataNotFound, .printNotFound),
        (.dataFull, .storageFull), (.dataDuplicate, .duplicate), (.removed, .unplugged), (.tooHot, .tooHot),
    ]

    static let usbCodes: [(USBErrorCode, Code?)] = [
        (.internal, .deviceError), (.io, .deviceError), (.timedOut, .deviceError), (.notSupported, .notSupported),
        (.noDevice, .unplugged), (.notOpen, .deviceError), (.alreadyOpen, .busy), (.cancelled, nil),
        (.failed, .deviceError), (.permissionDenied, .permissionDenied), (.busy, .busy),
    ]

    @Test func theTablesCoverEveryCode() {
        #expect(Self.deviceCodes.map(\.0.rawValue) == DeviceErrorCode.allCases.map(\.rawValue))
        #expect(Self.usbCodes.map(\.0.rawValue) == USBErrorCode.allCases.map(\.rawValue))
        #expect(DeviceErrorCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x100, 0x101])
        #expect(USBErrorCode.allCases.map(\.rawValue) == Array(0...10))
    }

    @Test(arguments: deviceCodes)
    func deviceError(_ libfprint: DeviceErrorCode, expected: Code) throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .device, code: libfprint.rawValue, message: "driver text"))
                as? FingerprintError)
        #expect(error.code == expected)
        expectOneSentence(error.message)
    }

    @Test func busySaysWhoMayHoldTheReader() throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .device, code: 4, message: "")) as? FingerprintError)
        #expect(error.message.contains("another program such as fprintd may be using the reader"))
    }

    @Test func unpluggedAndTooHotSayWhatToDo() throws {
        let unplugged = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .device, code: 0x100, message: "")) as? FingerprintError)
        #expect(unplugged.message.contains("unplugged"))
        let hot = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .device, code: 0x101, message: "")) as? FingerprintError)
        #expect(hot.message.contains("cool down"))
    }

    @Test func unknownDeviceCodeKeepsTheDetail() throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .device, code: 77, message: "odd")) as? FingerprintError)
        #expect(error.code == .deviceError)
        #expect(error.message.contains("odd") && error.message.contains("77"))
    }

    @Test(arguments: usbCodes)
    func usbError(_ usb: USBErrorCode, expected: Code?) throws {
        let mapped = LibfprintErrorMapping.map(GLibError(domain: .usb, code: usb.rawValue, message: "USB error"))
        guard let expected else {
            #expect(mapped is CancellationError)
            return
        }
        let error = try #require(mapped as? FingerprintError)
        #expect(error.code == expected)
        expectOneSentence(error.message)
    }

    @Test func permissionDeniedSaysHowToGrantAccess() throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .usb, code: 9, message: "")) as? FingerprintError)
        #expect(error.code == .permissionDenied)
        #expect(error.message.contains("udev rules (make install)"))
        #expect(error.message.contains("plugdev"))
        #expect(error.message.contains("replug the reader"))
    }

    @Test func unknownUSBCode() throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .usb, code: 42, message: "weird")) as? FingerprintError)
        #expect(error.code == .deviceError)
        #expect(error.message.contains("weird"))
    }

    /// libusb's own wording (as GUsb formats it: "USB error on device 06cb:00bd : TEXT [CODE]") and
    /// errno wording, under codes that do not say what happened by themselves.
    @Test(arguments: [
        (
            GLibError.Domain.usb, 0, "USB error on device 06cb:00bd : Access denied (insufficient permissions) [-3]",
            Code.permissionDenied
        ),
        (.usb, 1, "USB error on device 06cb:00bd : Resource busy [-6]", .busy),
        (.usb, 4, "USB error on device 06cb:00bd : Resource busy [-6]", .busy),
        (.usb, 4, "USB error on device 06cb:00bd : No such device (it may have been disconnected) [-4]", .unplugged),
        (.usb, 8, "LIBUSB_ERROR_ACCESS", .permissionDenied),
        (.device, 0, "Failed to claim interface: LIBUSB_ERROR_BUSY", .busy),
        (.device, 0, "libusb_open failed: LIBUSB_ERROR_NO_DEVICE", .unplugged),
        (.other("g-unix-error-quark"), 13, "Error opening /dev/spidev0.0: Permission denied", .permissionDenied),
        (.other("g-unix-error-quark"), 16, "Device or resource busy", .busy),
        (.other("g-unix-error-quark"), 19, "No such device", .unplugged),
        (.other("g-unix-error-quark"), 5, "Input/output error", .deviceError),
    ])
    func libusbAndErrnoMessages(domain: GLibError.Domain, code: Int, message: String, expected: Code) throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: domain, code: code, message: message)) as? FingerprintError)
        #expect(error.code == expected)
        expectOneSentence(error.message)
    }

    @Test(arguments: [
        (IOErrorCode.timedOut, Code.deviceError), (.permissionDenied, .permissionDenied), (.busy, .busy),
        (.notFound, .noReader),
    ])
    func ioError(_ io: IOErrorCode, expected: Code) throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .io, code: io.rawValue, message: "")) as? FingerprintError)
        #expect(error.code == expected)
        expectOneSentence(error.message)
    }

    @Test func otherIOErrorsKeepTheDetail() throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .io, code: 0, message: "Generic GIO failure"))
                as? FingerprintError)
        #expect(error.code == .deviceError)
        #expect(error.message.contains("Generic GIO failure"))
    }

    @Test func cancelledIsCancellationErrorUnlessATimeoutCancelled() throws {
        let cancelled = GLibError(domain: .io, code: 19, message: "Operation was cancelled")
        #expect(LibfprintErrorMapping.map(cancelled) is CancellationError)
        #expect(LibfprintErrorMapping.map(cancelled, cancelledBecause: .task) is CancellationError)
        let timedOut = try #require(
            LibfprintErrorMapping.map(cancelled, cancelledBecause: .timeout(.seconds(30))) as? FingerprintError)
        #expect(timedOut == .timedOut(after: 30))
        #expect(timedOut.message == "No finger was detected within 30 s.")
        let usbCancelled = GLibError(domain: .usb, code: 7, message: "")
        #expect(
            (LibfprintErrorMapping.map(usbCancelled, cancelledBecause: .timeout(.milliseconds(500)))
                as? FingerprintError)?
                .code == .timedOut)
    }

    /// A transfer that timed out is a reader that stopped answering (exit 4), not a finger that did not
    /// come (exit 1); only fingerlock's own scan timer makes a timeout the user's.
    @Test(arguments: [GLibError(domain: .usb, code: 2, message: ""), GLibError(domain: .io, code: 24, message: "")])
    func aTransferTimeoutIsADeviceFailure(_ error: GLibError) throws {
        for reason in [nil, CancelReason.task] {
            let mapped = try #require(LibfprintErrorMapping.map(error, cancelledBecause: reason) as? FingerprintError)
            #expect(mapped.code == .deviceError)
            #expect(mapped.message.contains("stopped answering"))
        }
        let scan = try #require(
            LibfprintErrorMapping.map(error, cancelledBecause: .timeout(.seconds(20))) as? FingerprintError)
        #expect(scan == .timedOut(after: 20))
    }

    /// An error libfprint does not own (1.94.5's fpcmoc hands back a freed one) is reported as the
    /// reader failing, naming the driver and what to try, never as "no details (unknown 32605)".
    @Test func anInvalidErrorNamesTheDriver() throws {
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .invalid, code: 32605, message: ""), driver: "fpcmoc")
                as? FingerprintError)
        #expect(error.code == .deviceError)
        #expect(error.message.contains("driver fpcmoc"))
        #expect(error.message.contains("unplug and replug"))
        #expect(!error.message.contains("no details"))
        expectOneSentence(error.message)
    }

    @Test(arguments: [(0, RetryReason.general), (1, .tooShort), (2, .centerFinger), (3, .removeFinger), (9, .general)])
    func retryCodes(code: Int, reason: RetryReason) throws {
        #expect(LibfprintErrorMapping.retryReason(code: code) == reason)
        let error = try #require(
            LibfprintErrorMapping.map(GLibError(domain: .retry, code: code, message: "")) as? FingerprintError)
        #expect(error.message == reason.hint)
    }

    @Test func featureBitsAreLibfprintsValues() {
        // CAPTURE 1, IDENTIFY 2, VERIFY 4, STORAGE 8, LIST 16, DELETE 32, CLEAR 64, DUPLICATES 128;
        // ALWAYS_ON 256 and UPDATE_PRINT 512 are not fingerlock features.
        #expect(LibfprintContext.features(fromLibfprint: 1 | 2 | 4) == [.capture, .identify, .verify])
        #expect(
            LibfprintContext.features(fromLibfprint: 2 | 4 | 8 | 16 | 32 | 64 | 128)
                == [.identify, .verify, .storage, .storageList, .storageDelete, .storageClear, .duplicatesCheck])
        #expect(LibfprintContext.features(fromLibfprint: 4 | 256 | 512) == [.verify])
    }

    private func expectOneSentence(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!message.isEmpty, sourceLocation: sourceLocation)
        #expect(message.first?.isUppercase == true, sourceLocation: sourceLocation)
        #expect(message.hasSuffix("."), sourceLocation: sourceLocation)
        #expect(!message.dropLast().contains(". "), "one sentence: \(message)", sourceLocation: sourceLocation)
    }
}
