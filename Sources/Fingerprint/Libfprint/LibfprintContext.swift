internal import CFprint
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The process's libfprint: its one dedicated thread and its `FpContext`.
///
/// Create exactly one per process (the executable or a test's setup does) and pass it to whoever needs
/// readers; it is never a global. libfprint reads the `FP_VIRTUAL_*` variables when the context first
/// enumerates, so set them before the first ``readers()`` call. The context stays alive as long as any
/// of its readers, because it owns libfprint's device array.
public final class LibfprintContext: Sendable {
    let thread: LibfprintThread
    /// The `FpContext`, created on the thread by the first enumeration.
    private let context = Mutex<ThreadBound<UnsafeMutablePointer<FpContext>>?>(nil)
    /// The clock that stamps enrolled prints.
    let now: @Sendable () -> Date
    /// Where libfprint's and GLib's log lines go (never raw to the terminal).
    let log: @Sendable (LibfprintLogLine) -> Void

    /// - Parameter now: the clock used for enrollment dates.
    /// - Parameter log: receives libfprint's and GLib's log lines (warnings, criticals, debug); by
    ///   default they are dropped.
    public init(now: @escaping @Sendable () -> Date = { Date() }, log: @escaping @Sendable (LibfprintLogLine) -> Void = { _ in }) {
        self.thread = LibfprintThread()
        self.now = now
        self.log = log
    }

    deinit {
        if let context = context.withLock({ $0 }) {
            thread.submit { libfprint.g_object_unref(context.pointer) }
        }
        thread.stop()
    }

    /// The context, created and enumerated on first use (opening libfprint first). Runs on the libfprint
    /// thread only.
    private func enumeratedContext() throws(FingerprintError) -> UnsafeMutablePointer<FpContext> {
        try LibfprintLibrary.require()
        let fpContext = context.withLock { state in
            if let state { return state.pointer }
            // Before libfprint can say anything: its log goes to our sink, not GLib's stderr writer.
            LibfprintLog.route(to: log)
            let created = libfprint.fp_context_new()!
            state = ThreadBound(created)
            return created
        }
        // Enumerates once per context; later calls return at once.
        libfprint.fp_context_enumerate(fpContext)
        return fpContext
    }

    /// Every reader libfprint can drive right now, in libfprint's order.
    public func readers() async throws -> [LibfprintReader] {
        let found = try await thread.run { [self] () -> [(ThreadBound<UnsafeMutablePointer<FpDevice>>, ReaderInfo)] in
            let fpContext = try self.enumeratedContext()
            // Hotplug: GUsb queues device-added/removed on the main context, which only an operation
            // iterates (the thread sleeps while idle, so an idle process never wakes up). Dispatching
            // what is pending makes a long-lived context (fingerlockd's) list today's readers.
            while libfprint.g_main_context_iteration(nil, 0) != 0 {}
            guard let devices = libfprint.fp_context_get_devices(fpContext) else { return [] }
            return (0..<devices.pointee.len).map { index in
                let device = fl_ptr_array_index(devices, index)!.assumingMemoryBound(to: FpDevice.self)
                _ = libfprint.g_object_ref(device)
                return (ThreadBound(device), Self.describe(device))
            }
        }
        return found.map { device, info in
            LibfprintReader(context: self, device: DeviceHandle(device, context: self), info: info)
        }
    }

    /// Has GLib log `count` criticals on the libfprint thread (removing a timer that does not
    /// exist), as a cancelled operation may: for tests of where the log goes.
    package func logCriticalsForTesting(_ count: Int = 1) async throws {
        try await thread.run { [self] in
            _ = try self.enumeratedContext()
            for _ in 0..<count { _ = libfprint.g_source_remove(0x7fff_fff0) }
        }
    }

    /// Which sink GLib's log goes to now (for tests: logging must leave it as routed).
    package static var routedLogSinkForTesting: ObjectIdentifier? {
        LibfprintLog.currentSink.map(ObjectIdentifier.init)
    }

    /// Waits until every operation started so far has ended and its device is closed.
    ///
    /// A cancelled enrollment's stream ends at once, while libfprint is still closing the device; call
    /// this before exiting (or before driving the next operation from outside) to be sure it is done.
    public func waitUntilIdle() async {
        // Nothing was ever asked of libfprint: do not start its thread just to find it idle.
        guard thread.isStarted else { return }
        _ = try? await thread.run {}
    }

    /// The reader named by `selector`: `driver` (its first device) or `driver:device-id`.
    ///
    /// Throws ``FingerprintError/Code/noReader`` with the connected readers when none matches.
    public func reader(matching selector: String) async throws -> LibfprintReader {
        let all = try await readers()
        let wanted = ReaderIdentity(selector)
        let match = all.first { reader in
            if let wanted { return reader.info.identity == wanted }
            return reader.info.driver == selector
        }
        if let match { return match }
        let connected = all.map(\.info.identity.description)
        let list = connected.isEmpty ? "none is connected" : "connected: \(connected.joined(separator: ", "))"
        throw FingerprintError.noReader("No fingerprint reader matches \(selector) (\(list)).")
    }

    /// Reads what libfprint says about `device` (on the thread).
    private static func describe(_ device: UnsafeMutablePointer<FpDevice>) -> ReaderInfo {
        let scanType: ScanType = libfprint.fp_device_get_scan_type(device) == FP_SCAN_TYPE_PRESS ? .press : .swipe
        return ReaderInfo(
            name: libfprintText(libfprint.fp_device_get_name(device)),
            driver: libfprintText(libfprint.fp_device_get_driver(device)),
            deviceID: libfprintText(libfprint.fp_device_get_device_id(device)),
            scanType: scanType,
            enrollStages: Int(libfprint.fp_device_get_nr_enroll_stages(device)),
            features: features(fromLibfprint: UInt32(libfprint.fp_device_get_features(device).rawValue)))
    }

    /// Keeps the `FpDeviceFeature` bits fingerlock knows (they share libfprint's values).
    static func features(fromLibfprint bits: UInt32) -> ReaderFeatures {
        let known: [ReaderFeatures] = [
            .capture, .identify, .verify, .storage, .storageList, .storageDelete, .storageClear, .duplicatesCheck,
        ]
        return ReaderFeatures(known.filter { bits & $0.rawValue != 0 })
    }

    /// Runs one libfprint operation on the thread with a fresh `GCancellable`.
    ///
    /// Task cancellation cancels it (throwing `CancellationError`); with a `timeout`, a GLib timer cancels it
    /// when no finger arrives in time (throwing ``FingerprintError/Code/timedOut``). libfprint errors are
    /// mapped to ``FingerprintError``, naming `driver` where the error alone says nothing.
    func perform<T: Sendable>(
        driver: String, timeout: Duration?,
        _ body: @escaping @Sendable (OperationControl, UnsafeMutablePointer<GCancellable>) throws -> T
    ) async throws -> T {
        let control = OperationControl(timeout: timeout)
        do {
            return try await withTaskCancellationHandler {
                try await thread.run {
                    try control.withCancellable { cancellable in try body(control, cancellable) }
                }
            } onCancel: {
                control.cancel(.task)
            }
        } catch let error as GLibError {
            throw LibfprintErrorMapping.map(error, cancelledBecause: control.reason, driver: driver)
        }
    }
}

/// Owns one reference to an `FpDevice`; the unref happens on the libfprint thread.
///
/// It keeps the context alive, so the device is always released before the `FpContext` and before the
/// thread stops.
final class DeviceHandle: Sendable {
    let device: ThreadBound<UnsafeMutablePointer<FpDevice>>
    private let context: LibfprintContext

    init(_ device: ThreadBound<UnsafeMutablePointer<FpDevice>>, context: LibfprintContext) {
        self.device = device
        self.context = context
    }

    deinit {
        context.thread.submit { [device] in libfprint.g_object_unref(device.pointer) }
    }
}
