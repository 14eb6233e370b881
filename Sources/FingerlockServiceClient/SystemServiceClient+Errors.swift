import Auth
import FingerlockProtocol
import Fingerprint
import Vault

/// The service's failures as the seam's one error type; an enumerated value this client does not
/// know is a protocol error, never a guess.
extension SystemServiceClient {
    func map(_ error: ServiceClientError) -> SystemServiceError {
        switch error {
        case .unreachable(let why): return unreachable(why)
        case .timedOut: return unreachable("it did not answer in time")
        case .protocolViolation(let why): return Self.failure("fingerlockd at \(socketPath): \(why).")
        case .notTheService(let why):
            return SystemServiceError(
                .unreachable(
                    "\(socketPath) is not fingerlockd as this fingerlock knows it (\(why)), so nothing derived from the "
                        + "passcode was sent: point --socket (FINGERLOCK_SOCKET) at fingerlockd, or install fingerlock and "
                        + "fingerlockd from the same source."))
        case .service(let failure): return map(failure)
        }
    }

    private func map(_ failure: VarlinkError) -> SystemServiceError {
        typealias Name = ServiceInterface.ErrorName
        func string(_ key: String) -> String {
            if case .string(let text) = failure.parameters[key] { text } else { "" }
        }
        /// A parameter that must be one of `T`'s values; anything else is a protocol error.
        func value<T: RawRepresentable>(_ key: String, _ type: T.Type) -> T? where T.RawValue == String {
            T(rawValue: string(key))
        }
        func unknown(_ key: String) -> SystemServiceError {
            Self.failure("fingerlockd answered \(failure.name) with an unknown \(key) '\(string(key))': is it of another version?")
        }
        switch failure.name {
        case Name.wrongPasscode.qualifiedName:
            return SystemServiceError(
                .wrongPasscode(
                    failedPasscodes: failure.int("failedPasscodes") ?? 0, delaySeconds: failure.int("delaySeconds") ?? 0))
        case Name.passcodeDelayed.qualifiedName:
            return SystemServiceError(
                .passcodeDelayed(
                    secondsLeft: failure.int("secondsLeft") ?? 0, failedPasscodes: failure.int("failedPasscodes") ?? 0))
        case Name.tpmRefused.qualifiedName:
            return SystemServiceError(
                .tpmRefused(problem: string("problem"), message: string("message"), secondsLeft: failure.int("secondsLeft") ?? 0))
        case Name.keyRequired.qualifiedName:
            return Self.failure(
                "fingerlockd holds another key for this vault, so it will not seal a passcode slot for this one. "
                    + "`fingerlock passcode reset` (with the recovery key) puts the vault back in user mode.")
        case Name.vaultNotRegistered.qualifiedName:
            return SystemServiceError(.notRegistered)
        case Name.tooManyConnections.qualifiedName:
            let limit = failure.int("limit").map { " (\($0))" } ?? ""
            return Self.failure("fingerlockd has too many connections open\(limit); try again in a moment.")
        case Name.passcodeRequired.qualifiedName:
            let reason = ServiceInterface.PasscodeRequiredReason(rawValue: string("reason"))
            if reason == .fingersChanged {
                return SystemServiceError(.fingersChanged(string("message")))
            }
            return SystemServiceError(.passcodeRequired(lockout: reason == .lockout))
        case Name.wrongReaderKind.qualifiedName:
            guard let kind = value("kind", VaultKind.self) else { return unknown("kind") }
            return SystemServiceError(.wrongReaderKind(reader: string("reader"), kind: kind))
        case Name.noFingerEnrolled.qualifiedName:
            return SystemServiceError(.noFingerEnrolled(reader: string("reader")))
        case Name.fingerNotEnrolled.qualifiedName:
            guard let finger = Finger(name: string("finger")) else { return unknown("finger") }
            return SystemServiceError(.fingerNotEnrolled(finger))
        case Name.noMatch.qualifiedName:
            let lost = string("lost")
            return SystemServiceError(
                .noMatch(
                    failedTouches: failure.int("failedTouches") ?? 0, touchesLeft: failure.int("touchesLeft") ?? 0,
                    lost: lost.isEmpty ? nil : lost))
        case Name.scanRetry.qualifiedName:
            guard let reason = value("reason", RetryReason.self) else { return unknown("reason") }
            return SystemServiceError(.retry(reason))
        case Name.readerMismatch.qualifiedName:
            return SystemServiceError(.readerMismatch(reader: string("reader"), serviceReader: string("serviceReader")))
        case Name.scanTimedOut.qualifiedName:
            return SystemServiceError(.timedOut)
        case Name.scanRequired.qualifiedName:
            return SystemServiceError(
                .scanNeeded(tries: failure.int("maxTries"), scanTimeoutSeconds: failure.int("scanTimeoutSeconds")))
        case Name.notAtSeat.qualifiedName:
            guard let problem = value("problem", ServiceInterface.SeatProblem.self) else { return unknown("problem") }
            return SystemServiceError(.notAtSeat(evidence: string("message"), unverifiable: problem == .unknown))
        case Name.readerUnavailable.qualifiedName:
            guard let problem = value("problem", ServiceInterface.ReaderProblem.self) else { return unknown("problem") }
            if problem == .printNotStored { return SystemServiceError(.printsLost(string("message"))) }
            let code: FingerprintError.Code =
                switch problem {
                case .noReader: .noReader
                case .busy: .busy
                case .unplugged: .unplugged
                case .noPermission: .permissionDenied
                case .deviceError, .printNotStored: .deviceError
                }
            return SystemServiceError(.reader(FingerprintError(code, "fingerlockd: " + string("message"))))
        default:
            var reason = ""
            if case .string(let text) = failure.parameters["reason"] { reason = ": " + text }
            return Self.failure("fingerlockd refused (\(failure.name)\(reason)).")
        }
    }
}
