public import Crypto
public import Foundation
public import TrustedPlatform
public import Vault

/// System mode's passcode-slot sealer: fingerlockd seals the slot under a key derived from the
/// stretched passcode and its per-vault secret, and counts every attempt to open it (delays
/// included) before it tries. Its refusals reach the vault as `PasscodeSealerError`s carrying the
/// sentence the user reads (the service's count and delay).
public struct ServicePasscodeSealer: PasscodeSlotSealer {
    let service: any SystemService
    /// How a slot sealed now is bound to fingerlockd's TPM (nil: not bound). Opening needs no
    /// choice: the service sees from the slot whether it is bound.
    let tpm: TPMBinding?
    /// Told what an opening changed besides (see ``SystemService/unlock(_:notify:)``).
    let notify: @Sendable (String) -> Void

    public init(service: any SystemService, tpm: TPMBinding? = nil, notify: @escaping @Sendable (String) -> Void = { _ in }) {
        self.service = service
        self.tpm = tpm
        self.notify = notify
    }

    public var mode: VaultMode { .system }

    public func seal(_ key: SymmetricKey, for slot: PasscodeSlotBinding, authorizedBy currentKey: SymmetricKey?)
        throws(PasscodeSealerError) -> Data
    {
        do {
            return try service.seal(key, for: slot, authorizedBy: currentKey, tpm: tpm)
        } catch let error as SystemServiceError {
            // Sealing: nothing is bound yet, so not worded as opening a bound slot is.
            // Only a TPM that is not there is `unavailable` (a reset may then leave the slot unbound);
            // a TPM that answered with a refusal changes nothing and is tried again.
            if case .tpmRefused(let problem, let message, _) = error.code {
                throw PasscodeSealerError(
                    problem == "unreachable" ? .unavailable : .delayed,
                    "fingerlockd could not bind the passcode to its TPM: " + message
                        + (problem == "unreachable" ? "" : " Nothing was changed; try again."))
            }
            throw Self.sealerError(error)
        } catch {
            throw Self.sealerError(error)
        }
    }

    public func open(_ slot: SealedPasscodeSlot) throws(PasscodeSealerError) -> SymmetricKey {
        do {
            return try service.unlock(slot, notify: notify)
        } catch {
            throw Self.sealerError(error)
        }
    }

    /// Proves the slot just committed: until a slot it sealed is seen in use the service still
    /// takes the one before it, which a change that failed after sealing leaves in the vault. Best
    /// effort: if it fails, the next passcode unlock proves it.
    public func confirm(_ slot: SealedPasscodeSlot) {
        _ = try? service.unlock(slot, notify: notify)
    }

    static func sealerError(_ error: any Error) -> PasscodeSealerError {
        guard let error = error as? SystemServiceError else {
            return PasscodeSealerError(.unavailable, "fingerlockd failed: \(error).")
        }
        switch error.code {
        case .wrongPasscode(let failed, let delay):
            let wait = delay > 0 ? "; the next try must wait \(describe(delay))" : ""
            return PasscodeSealerError(.wrongPasscode, "Wrong passcode (fingerlockd counts \(failed) wrong in a row\(wait)).")
        case .passcodeDelayed(let left, let failed):
            return PasscodeSealerError(
                .delayed,
                "Too many wrong passcodes (\(failed), counted by fingerlockd): "
                    + "try again in \(describe(left)).")
        case .tpmRefused(let problem, let message, _):
            // "shareSpent": the service did not ask the TPM, the caller's share of its failures being
            // spent; a delay like the TPM's own.
            let delayed = ["lockout", "nearLockout", "shareSpent", "busy"].contains(problem)
            return PasscodeSealerError(
                delayed ? .delayed : .unavailable,
                (delayed ? "" : "This vault's passcode is bound to the TPM fingerlockd uses. ") + message + " "
                    + TPMBoundSealer.recoveryKeyNote)
        case .notRegistered:
            return PasscodeSealerError(
                .unavailable,
                "fingerlockd has no secret for this vault (it was forgotten, or the service's state was lost): "
                    + "the passcode cannot open it. The recovery key still does: run `fingerlock passcode reset`.")
        case .unreachable(let message), .failure(let message):
            return PasscodeSealerError(.unavailable, message)
        default:
            // Not an answer about a passcode slot: as the policy words it anywhere else.
            return PasscodeSealerError(.unavailable, AuthError.from(systemService: error).message)
        }
    }

    /// Seconds as the service's refusals word them: rounded up to the unit.
    static func describe(_ seconds: Int) -> String {
        if seconds < 60 { return "\(max(seconds, 1)) s" }
        let minutes = (seconds + 59) / 60
        return minutes < 60 ? "\(minutes) min" : "\((minutes + 59) / 60) h"
    }
}
