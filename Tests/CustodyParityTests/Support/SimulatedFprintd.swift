import AuthCore
import Fingerprint
import Foundation
import Synchronization

/// fprintd's part played by the simulated reader, for the parity scenarios that run with fprintd's
/// fingers: it keeps the prints itself (as fprintd does, never the vault), identifies a touch among
/// them with the simulated reader's own matching and names the finger it matched. The real fprintd is
/// asked in the Fprintd, service and end-to-end suites; here the rules are what is compared.
final class SimulatedFprintd: FprintdFingers {
    let reader: SimulatedReader
    private let prints = Mutex<[Finger: EnrolledPrint]>([:])
    static let device = FprintdDevice(name: "Simulated fprintd reader", scanType: .press, enrollStages: 1)

    init(reader: SimulatedReader) { self.reader = reader }

    func device() async throws -> FprintdDevice { Self.device }

    func enrolledFingers() async throws -> [Finger] { prints.withLock { $0.keys.sorted() } }

    func fingersNow() throws -> AcceptedFingers {
        AcceptedFingers(device: Self.device.name, fingers: prints.withLock { Array($0.keys) })
    }

    func verify(_ finger: Finger?, timeout: Duration, fingerRead: @escaping @Sendable () -> Void) async throws
        -> FprintdVerifyResult
    {
        let kept = prints.withLock { Array($0.values) }.sorted { $0.finger < $1.finger }
        let checked = finger.map { wanted in kept.filter { $0.finger == wanted } } ?? kept
        guard !checked.isEmpty else { throw FingerprintError(.printNotFound, "fprintd has no such finger enrolled for you.") }
        switch try await TemplateFingerSource(checked, reader: reader).match(nil, timeout: timeout, fingerRead: fingerRead) {
        case .match(let matched): return .match(selected: matched)
        case .noMatch, .printsLost: return .noMatch(checked: nil)
        case .retry(let reason): return .retry(reason)
        }
    }

    func enroll(_ finger: Finger, timeout: Duration, progress: @escaping @Sendable (EnrollEvent) -> Void) async throws {
        for try await event in reader.enroll(finger, username: "fprintd", timeout: timeout) {
            if case .enrolled(let print) = event {
                prints.withLock { $0[finger] = print }
                return
            }
            progress(event)
        }
    }

    /// A finger enrolled behind the vault's back (the desktop's settings, with the login password).
    func add(_ finger: Finger) async throws {
        try await enroll(finger, timeout: .seconds(5)) { _ in }
    }
}
