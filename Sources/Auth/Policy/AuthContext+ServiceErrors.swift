import Fingerprint
import Foundation
import Vault

/// fingerlockd's answers as the policy's errors, and the stand-ins for what stays in the service.
extension AuthContext {
    var systemService: any SystemService { dependencies.systemService }

    func systemCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemServiceError {
            throw Self.authError(systemService: error)
        }
    }

    func asyncSystemCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SystemServiceError {
            throw Self.authError(systemService: error)
        }
    }

    /// Stands for the service's reader in enrollment's first update: its details stay in the service.
    static let serviceReaderInfo = ReaderInfo(
        name: "fingerlockd's fingerprint reader", driver: "fingerlockd", deviceID: "0", scanType: .press,
        enrollStages: 0, features: [])

    static func print(_ finger: SystemEnrolledFinger) -> EnrolledPrint {
        // No template leaves the service: the print only names the finger, its reader and its date.
        EnrolledPrint(finger: finger.finger, reader: finger.reader, template: Data(), enrolled: finger.enrolled)
    }

    static func authError(systemService error: SystemServiceError) -> AuthError {
        switch error.code {
        case .passcodeRequired(let lockout):
            if lockout {
                return AuthError(
                    .biometryLockout,
                    "Too many failed touches: fingerlockd forgot the key, so the passcode is needed.")
            }
            return AuthError(
                .biometryNotAvailable,
                "The passcode is needed first (after a reboot or a restart of fingerlockd, `fingerlock lock`, or when the key expires).",
                unavailability: .noCachedKey)
        case .noFingerEnrolled(let reader):
            return AuthError(
                .biometryNotEnrolled, "No finger is enrolled on fingerlockd's reader \(reader); run `fingerlock enroll`.")
        case .fingerNotEnrolled(let finger):
            return AuthError(
                .notFound, "\(finger) is not enrolled; `fingerlock fingers` lists the enrolled ones.")
        case .noMatch:
            return AuthError(.authenticationFailed, "No match.")
        case .retry(let reason):
            return AuthError(.authenticationFailed, "The reader could not read the finger: \(reason.hint)")
        case .timedOut:
            return AuthError(.timeout, "No finger touched fingerlockd's reader in time.")
        case .scanNeeded:
            // Only a release without a scan is refused so; the caller scans next.
            return AuthError(.biometryNotAvailable, "fingerlockd needs a touch to release the key.")
        case .reader(let error):
            return authError(error)
        case .wrongReaderKind(let reader, let kind):
            return wrongReaderKind(reader, vaultKind: kind)
        case .readerMismatch(let reader, let serviceReader):
            let theirs = serviceReader.isEmpty ? "fingerlockd has no reader" : "fingerlockd's reader is \(serviceReader)"
            return AuthError(.biometryNotAvailable, "It was enrolled on \(reader) and \(theirs).")
        case .wrongPasscode, .passcodeDelayed, .notRegistered:
            // Worded once, by the sealer the vault sees the same refusals through.
            let refusal = ServicePasscodeSealer.sealerError(error)
            switch refusal.code {
            case .wrongPasscode: return AuthError(.authenticationFailed, refusal.message)
            case .delayed: return AuthError(.passcodeDelay, refusal.message)
            case .unavailable: return AuthError(.serviceUnavailable, refusal.message)
            }
        case .unreachable(let message), .failure(let message):
            return AuthError(.serviceUnavailable, message)
        }
    }
}
