public import Fingerprint
public import FoundationEssentials

/// The reader the service scans with, looked up at each operation so a reader plugged in or
/// removed while the service runs is followed (libfprint's context lives while scans use it; each
/// operation opens the device and closes it after, so nothing stays claimed).
public struct ServiceReaders: Sendable {
    /// The reader in effect now; throws ``FingerprintError/Code/noReader`` when there is none.
    public var current: @Sendable () async throws -> any FingerprintReader

    public init(current: @escaping @Sendable () async throws -> any FingerprintReader) {
        self.current = current
    }

    /// No reader at all (a service started without one, and most tests of the passcode methods).
    public static let none = ServiceReaders { throw FingerprintError.noReader() }

    /// One fixed reader (the simulated one, or a test's).
    public static func fixed(_ reader: any FingerprintReader) -> ServiceReaders {
        ServiceReaders { reader }
    }

    /// The readers `selector` names: the simulated one scripted by `environment` (the service's
    /// own, set by whoever started it), or the first matching libfprint reader of `context`.
    ///
    /// libfprint's context is made at the first scan and kept until no scan has used it for
    /// `keepContext`: while it lives, GUsb's event thread wakes every 2 s, and an idle service
    /// must not wake. A new one costs a few milliseconds (libfprint's drivers, a udev enumeration).
    public static func resolve(
        _ selector: ReaderSelector, environment: [String: String], context: @escaping @Sendable () -> LibfprintContext,
        keepContext: Duration = .seconds(30), now: @escaping @Sendable () -> Date
    ) throws -> ServiceReaders {
        if selector == .simulated {
            // Nobody is at the service's terminal: an unscripted simulated reader times out.
            guard
                let reader = try SimulatedReader.fromEnvironment(
                    environment, unscripted: { ScriptedTouchSource([]) }, now: now)
            else {
                return ServiceReaders {
                    throw FingerprintError.noReader(
                        "The simulated reader is absent (FINGERLOCK_SIMULATED_TOUCHES starts with 'absent').")
                }
            }
            return .fixed(reader)
        }
        if selector == .fprintd {
            // fprintd owns the reader: the service opens none of its own, and only the vaults that
            // take their owner's fingers from fprintd (`enroll --reader fprintd`) unlock with a touch.
            return ServiceReaders {
                throw FingerprintError.noReader(
                    "fingerlockd leaves the reader to fprintd (--reader fprintd): use the fingers fprintd has for you with"
                        + " `fingerlock enroll --reader fprintd`.")
            }
        }
        let contexts = IdleReleased(keep: keepContext, make: context)
        return ServiceReaders {
            let connected = try await contexts.current().readers()
            if let reader = connected.first(where: { selector.picks($0.identity) }) { return reader }
            if selector == .auto { throw FingerprintError.noReader() }
            throw FingerprintError.noReader("No fingerprint reader \(selector) is connected to fingerlockd's machine.")
        }
    }
}
