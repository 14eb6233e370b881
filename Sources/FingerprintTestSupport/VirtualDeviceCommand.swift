/// A command for libfprint's `virtual_device` / `virtual_device_storage` socket, with its exact wire text.
public enum VirtualDeviceCommand: Sendable, Equatable {
    /// A finger with identity `id` touches the reader (queued for the current or next scan).
    case scan(String)
    /// A retry condition: 0 general, 1 swipe too short, 2 center finger, 3 remove finger.
    case retry(Int)
    /// The operation fails with `FpDeviceError` `code`.
    case error(Int)
    /// A finger-present (true) or finger-gone report.
    case finger(Bool)
    /// Delays the rest of the queue.
    case sleep(milliseconds: Int)
    /// Lets a non-scan operation (list, delete, clear) proceed at once.
    case cont
    /// Storage driver only: adds `id` to the on-device store. (On the plain driver it aborts the process.)
    case insert(String)
    /// Storage driver only: removes `id` from the on-device store.
    case remove(String)
    /// Immediate: the stored ids, one per line, as the reply.
    case list
    /// Immediate: the device disappears; the running operation fails with REMOVED.
    case unplug
    /// Immediate: stages of the next enrollment.
    case setEnrollStages(Int)
    /// Immediate: `swipe` or `press`.
    case setScanType(String)
    /// Immediate: with false, a cancellation is only noticed at the next command.
    case setCancellationEnabled(Bool)
    /// Immediate: keep listening across close.
    case setKeepAlive(Bool)

    /// The bytes to send: no trailing newline (it would become part of an id); commands without an
    /// argument end with a space, as libfprint matches them by prefix.
    public var wireText: String {
        switch self {
        case .scan(let id): "SCAN \(id)"
        case .retry(let code): "RETRY \(code)"
        case .error(let code): "ERROR \(code)"
        case .finger(let present): "FINGER \(present ? 1 : 0)"
        case .sleep(let milliseconds): "SLEEP \(milliseconds)"
        case .cont: "CONT "
        case .insert(let id): "INSERT \(id)"
        case .remove(let id): "REMOVE \(id)"
        case .list: "LIST "
        case .unplug: "UNPLUG "
        case .setEnrollStages(let stages): "SET_ENROLL_STAGES \(stages)"
        case .setScanType(let type): "SET_SCAN_TYPE \(type)"
        case .setCancellationEnabled(let enabled): "SET_CANCELLATION_ENABLED \(enabled ? 1 : 0)"
        case .setKeepAlive(let enabled): "SET_KEEP_ALIVE \(enabled ? 1 : 0)"
        }
    }
}
