import AuthCore
import Crypto
public import FingerlockProtocol
import Fingerprint
import FoundationEssentials
import Logging

/// Fingerprint unlock through the service: a touch releases only a key the service already holds
/// (the passcode came first, as on a phone after a restart), matched against this vault's own
/// templates or verified by fprintd (a vault that took fprintd's fingers), counted once the reader
/// has the finger, forgotten after too many failures.
extension ServiceCore {
    func longCall(_ method: ServiceInterface.Method, _ call: VarlinkCall, peer: PeerCredentials, name: String)
        -> LongCall
    {
        LongCall { [self] emit in
            do {
                let reply: Data
                switch method {
                case .unlockWithTouch:
                    let parameters = try call.parameters(VarlinkParameters.UnlockWithTouch.self)
                    let more = call.more
                    reply = VarlinkReply.encode(
                        try await whileAtSeat(peer, for: "UnlockWithTouch") { [self] in
                            try await unlockWithTouch(parameters, peer: peer) { holder in
                                // Only a client that asked for more replies is told.
                                guard more else { return }
                                let waiting = VarlinkParameters.UnlockWithTouchReply(
                                    key: "", finger: "", reader: "", busyWith: holder)
                                _ = emit(VarlinkReply.encode(waiting, continues: true))
                            }
                        })
                case .enrollFinger:
                    guard call.more else { throw VarlinkError(name: "org.varlink.service.ExpectedMore") }
                    let parameters = try call.parameters(VarlinkParameters.EnrollFinger.self)
                    reply = VarlinkReply.encode(
                        try await whileAtSeat(peer, for: "EnrollFinger") { [self] in
                            try await enrollFinger(parameters, peer: peer) { stage in
                                emit(VarlinkReply.encode(VarlinkParameters.EnrollFingerReply(stage: stage), continues: true))
                            }
                        })
                case .useFprintdFingers:
                    reply = VarlinkReply.encode(
                        try await useFprintdFingers(call.parameters(VarlinkParameters.UseFprintdFingers.self), peer: peer))
                case .forgetFinger:
                    try await forgetFinger(call.parameters(VarlinkParameters.ForgetFinger.self), peer: peer)
                    reply = VarlinkReply.encode(VarlinkParameters.Empty())
                case .importFinger:
                    reply = VarlinkReply.encode(
                        try await importFinger(call.parameters(VarlinkParameters.ImportFinger.self), peer: peer))
                default:
                    throw VarlinkError.methodNotFound(method.qualifiedName)
                }
                logger.info("call", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(name)"])
                return reply
            } catch is CancellationError {
                logger.info("call cancelled", metadata: ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(name)"])
                return nil
            } catch {
                let failure = varlinkError(error)
                logger.info(
                    "call failed",
                    metadata: [
                        "uid": "\(peer.uid)", "pid": "\(peer.pid)", "method": "\(name)", "error": "\(failure.name)",
                    ])
                return VarlinkReply.encode(failure)
            }
        }
    }

    /// `UnlockWithTouch`. Throws `VarlinkError`s, or `CancellationError` when the scan was cancelled.
    /// `waiting` is told when another user's request holds the reader as this one arrives.
    public func unlockWithTouch(
        _ parameters: VarlinkParameters.UnlockWithTouch, peer: PeerCredentials,
        waiting: @escaping @Sendable (ServiceInterface.ReaderHolder) -> Void = { _ in }
    ) async throws -> VarlinkParameters.UnlockWithTouchReply {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let told = try toldPolicy(owner)
        let policy = told ?? .defaults
        let timeout = try touchTimeout(parameters.timeoutSeconds, told)
        let wanted = try parameters.finger.map { name throws(VarlinkError) in try Self.finger(name) }
        let secret = try registeredSecret(owner)
        let attempt = TouchAttempt(TouchLedger(try state { try dependencies.attempts(owner) })) { [self] in forgetKey(owner) }
        try checkTouchCanUnlock(owner, attempt)
        if parameters.reuse == true, let key = try reusedKey(owner, told) {
            return .init(key: key, finger: "", reader: "", reused: true, policyKnown: told != nil)
        }
        // Only the user at the reader's seat: a touch there is theirs, not a caller's elsewhere.
        try await requireSeat(peer, for: "UnlockWithTouch")
        let scan: (verdict: TouchVerdict, reader: ReaderIdentity)
        do {
            scan = try await scans.run(for: owner.uid, .scan, waitingAtMost: timeout, waiting: waiting) {
                // The seat may have changed hands while this one waited.
                try await takeReader(peer, for: "UnlockWithTouch")
                // Touches that ran while this one waited may have locked the vault out.
                try checkTouchCanUnlock(owner, attempt)
                let source = try await fingerSource(owner, secret: secret, policy: policy, timeout: timeout)
                // Nothing to check against (or fprintd's fingers changed): said before any scan.
                _ = try await source.candidates(wanted)
                // The failed-touch rule, as in user mode: counted when the reader has the finger.
                // A counter that cannot be written ends the touch as a service failure (logged).
                let verdict = try await attempt.run { fingerRead in
                    try await source.match(wanted, timeout: timeout, fingerRead: fingerRead)
                }
                return (verdict, source.reader.identity)
            }
        } catch {
            throw error is CancellationError ? error : varlinkError(error, timeout: timeout)
        }
        switch scan.verdict {
        case .matched(let finger):
            // Locked, expired or forgotten while the finger was on the reader: nothing to release.
            guard let key = try state({ try sessions.keyAfterTouch(name: owner.cacheName) }) else {
                throw Self.passcodeRequired(.locked)
            }
            logger.info("unlocked with a touch", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
            return .init(
                key: key.withUnsafeBytes { Data($0).base64EncodedString() }, finger: finger?.rawValue ?? "",
                reader: scan.reader.description, policyKnown: told != nil)
        case .printsLost(let sentence):
            // No finger could have matched a print the reader lost: no failed touch. The user must
            // enroll again, as in user mode.
            logger.notice(
                "touch of a print the reader no longer stores",
                metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "reader": "\(scan.reader)"])
            throw VarlinkError(
                .readerUnavailable,
                ["problem": .string(ServiceInterface.ReaderProblem.printNotStored.rawValue), "message": .string(sentence)])
        case .noMatch(let failures, let lost):
            logger.notice(
                "touch did not match",
                metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)", "failures": "\(failures)"])
            var parameters: [String: VarlinkError.Value] = [
                "failedTouches": .int(failures), "touchesLeft": .int(TouchLedger.touchesLeft(after: failures)),
            ]
            if let lost { parameters["lost"] = .string(lost) }
            throw VarlinkError(.noMatch, parameters)
        case .retry(let reason):
            throw VarlinkError(.scanRetry, ["reason": .string(reason.rawValue)])
        }
    }

    /// `ReleaseWithinReuseWindow`: the key without a scan, or what a touch needs.
    public func releaseWithinReuseWindow(_ parameters: VarlinkParameters.Vault, peer: PeerCredentials)
        throws(VarlinkError) -> VarlinkParameters.ReleaseWithinReuseWindowReply
    {
        let owner = try VaultOwner(uid: peer.uid, vault: parameters.vault)
        let told = try toldPolicy(owner)
        _ = try registeredSecret(owner)
        try checkTouchCanUnlock(owner, TouchAttempt(TouchLedger(try state { try dependencies.attempts(owner) })) { [self] in forgetKey(owner) })
        if let key = try reusedKey(owner, told) { return .init(key: key) }
        var settings: [String: VarlinkError.Value] = [:]
        if let told { settings = ["maxTries": .int(told.maxTries), "scanTimeoutSeconds": .int(told.scanTimeoutSeconds)] }
        throw VarlinkError(.scanRequired, settings)
    }

    /// Refuses a touch that could release nothing: locked out, or no key held.
    private func checkTouchCanUnlock(_ owner: VaultOwner, _ attempt: TouchAttempt) throws(VarlinkError) {
        // The lockout first: it also forgets the key (``TouchAttempt``), and is what the user must be told.
        if try state({ try attempt.lockedOut() }) { throw Self.passcodeRequired(.lockout) }
        // No key held, no scan: the touch could release nothing.
        guard try holdsKey(owner) else { throw Self.passcodeRequired(.locked) }
    }

    func holdsKey(_ owner: VaultOwner) throws(VarlinkError) -> Bool {
        try state { try sessions.key(name: owner.cacheName) } != nil
    }

    func forgetKey(_ owner: VaultOwner) {
        if (try? sessions.forget(name: owner.cacheName)) == true {
            logger.notice("cached key forgotten after failed touches", metadata: ["uid": "\(owner.uid)", "vault": "\(owner.vault)"])
        }
    }

    /// The reader in effect; a missing or unusable one is a `ReaderUnavailable`.
    func currentReader(timeout: Duration) async throws -> any FingerprintReader {
        do {
            return try await dependencies.readers.current()
        } catch {
            throw varlinkError(error, timeout: timeout)
        }
    }

    static func passcodeRequired(_ reason: ServiceInterface.PasscodeRequiredReason) -> VarlinkError {
        VarlinkError(.passcodeRequired, ["reason": .string(reason.rawValue)])
    }

    static func scanTimeout(_ seconds: Int) throws(VarlinkError) -> Duration {
        guard (1...ServiceInterface.maximumScanSeconds).contains(seconds) else { throw .invalidParameter("timeoutSeconds") }
        return .seconds(seconds)
    }

    static func finger(_ name: String) throws(VarlinkError) -> Finger {
        guard name.utf8.count <= 64, let finger = Finger(name: name) else { throw .invalidParameter("finger") }
        return finger
    }

    /// What a client is told about a failure: Varlink errors pass, reader errors say what the reader
    /// did (never a template), anything else is logged and reported as a `ServiceFailure`.
    func varlinkError(_ error: any Error, timeout: Duration? = nil) -> VarlinkError {
        switch error {
        case let error as VarlinkError:
            return error
        case let changed as FprintdFingerSource.FingersChanged:
            return VarlinkError(
                .passcodeRequired,
                ["reason": .string(ServiceInterface.PasscodeRequiredReason.fingersChanged.rawValue), "message": .string(changed.message)])
        case let problem as MatchCandidates.Problem:
            switch problem {
            case .noneEnrolled(let reader): return VarlinkError(.noFingerEnrolled, ["reader": .string(reader.description)])
            case .fingerNotEnrolled(let finger, _): return VarlinkError(.fingerNotEnrolled, ["finger": .string(finger.rawValue)])
            }
        case let error as FingerprintError:
            let problem: ServiceInterface.ReaderProblem
            switch error.code {
            case .timedOut:
                return VarlinkError(.scanTimedOut, ["seconds": .int(Int(timeout?.components.seconds ?? 0))])
            case .noReader: problem = .noReader
            case .busy: problem = .busy
            case .unplugged: problem = .unplugged
            case .permissionDenied: problem = .noPermission
            default: problem = .deviceError
            }
            return VarlinkError(
                .readerUnavailable, ["problem": .string(problem.rawValue), "message": .string(error.message)])
        default:
            logger.error("failure", metadata: ["error": "\(error)"])
            return VarlinkError(.serviceFailure, ["reason": .string("the service failed; see its log")])
        }
    }
}
