import AuthCore
import Fingerprint
import Foundation
import Synchronization
import TrustedPlatform
public import Vault

/// `system enable|disable|status`: moving a vault into system mode (fingerlockd holds a per-vault
/// secret entangled into the passcode slot and counts the passcode attempts) and back. The custody
/// of each side comes from the environment (`custody(for:)`); nothing here branches on it beyond
/// refusing a move to the mode the vault is already in.
public struct ModeMigration: Sendable {
    let environment: AuthEnvironment

    public init(_ environment: AuthEnvironment) { self.environment = environment }

    private var passcodes: any PasscodeRepository { environment.passcodes }
    private var systemService: any SystemService { environment.systemService }
    private var unlock: PasscodeUnlock { PasscodeUnlock(environment) }

    /// The vault's mode as recorded (unauthenticated; the slot-table MAC checks it at unlock).
    /// A vault that cannot be read is reported as user mode here; opening it reports the problem.
    public var currentMode: VaultMode { environment.vaultMode }

    /// `system enable`: the current passcode, then fingerlockd registers the vault and seals the new
    /// passcode slot; the user-mode slot is destroyed in the same transaction. Whatever this vault
    /// left in the user's keyring is removed. Then each finger enrolled in user mode moves to the
    /// service (proven with the new slot) and leaves the vault; one the service refuses stays in
    /// the vault (for user mode) and is reported, to be enrolled again through the service.
    @discardableResult
    public func enableSystemMode() async throws -> SystemModeFingers {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        guard environment.vaultMode == .user else { throw AuthError(.invalidInput, "This vault is already in system mode.") }
        try unlock.requirePasscodeSource()
        try unlock.refuseDuringPasscodeDelay()
        try requireServiceBeforeEnabling()
        let (vault, passcode) = try await unlock.promptForPasscode(reason: "move this vault into system mode", typedAhead: "")
        defer { vault.close() }
        environment.forgetRecordedHeader()
        // The header may have lagged behind a parallel `system enable`; the opened vault says.
        guard try AuthError.mapped({ try vault.mode }) == .user else {
            throw AuthError(.invalidInput, "This vault is already in system mode.")
        }
        let storeID = try AuthError.mapped { try vault.storeID }
        try environment.systemCall { try systemService.register(vault: storeID) }
        // The user-mode slot goes in the same transaction as the system-mode slot comes. The
        // service holds no key until the first passcode unlock. A slot bound to the TPM stays bound:
        // fingerlockd binds it to the TPM it uses.
        let binding = try AuthError.mapped { TPMBoundSlot.binding(of: try vault.passcodeSlotSealed) }
        try AuthError.mapped {
            try passcodes.movePasscodeSlot(
                of: vault, from: .user, to: environment.custody(for: .system).passcodeSealer(binding: binding),
                passcode: passcode)
        }
        environment.forgetUserKeyringEntries(of: vault)
        var moved = await moveFingersToService(from: vault, passcode: passcode)
        await moveFprintdAcceptanceToService(from: vault, passcode: passcode, result: &moved)
        // Last, after the moves' passcode proofs (which clear the service's counters): the settings,
        // and the counts user mode has now (parallel runs may have added to them since the
        // passcode), which the service's may never be below.
        environment.tellServicePolicy(of: vault, counts: try? environment.dependencies.attempts.read())
        return moved
    }

    /// fingerlockd must answer before anyone types the passcode for it. Its unreachable line ends
    /// with the recovery key's way in, which is for a vault already in system mode: this one is still
    /// in user mode, where the passcode alone opens it.
    private func requireServiceBeforeEnabling() throws {
        do {
            _ = try environment.systemService.status(vault: try environment.recordedStoreID)
        } catch let error as SystemServiceError {
            guard case .unreachable(let line) = error.code else { throw AuthError.from(systemService: error) }
            let reason = line.range(of: " The recovery key still opens").map { String(line[..<$0.lowerBound]) } ?? line
            throw AuthError(
                .serviceUnavailable, reason + " Nothing was changed: this vault stays in user mode, where the passcode opens it.")
        }
    }

    /// Never throws: the vault is in system mode already; what did not move is reported.
    private func moveFingersToService(from vault: Vault, passcode: String) async -> SystemModeFingers {
        let store = VaultPrintStore(vault: vault)
        var result = SystemModeFingers()
        let prints: [EnrolledPrint]
        do {
            prints = try store.allPrints()
        } catch {
            result.notMoved = [.init(finger: nil, reason: AuthError.from(error).message)]
            return result
        }
        guard !prints.isEmpty else { return result }
        let proof: SealedPasscodeSlot
        do {
            proof = try AuthError.mapped { try passcodes.sealedPasscodeSlot(passcode: passcode, mode: .system) }
        } catch {
            result.notMoved = prints.map { .init(finger: $0.finger, reason: AuthError.from(error).message) }
            return result
        }
        for print in prints {
            do {
                try await systemService.importPrint(print, proof: proof)
            } catch let error as SystemServiceError {
                result.notMoved.append(.init(finger: print.finger, reason: AuthError.from(systemService: error).message))
                continue
            } catch {
                result.notMoved.append(.init(finger: print.finger, reason: AuthError.from(error).message))
                continue
            }
            // The service keeps it now; a copy left in the vault would only serve user mode again.
            _ = try? store.delete(print.finger, on: print.reader)
            result.moved.append(print.finger)
        }
        return result
    }

    /// A vault that took fprintd's fingers keeps taking them in system mode: fingerlockd accepts
    /// fprintd's set as it is now (the passcode was just proven). What fails is reported, as for a
    /// finger that did not move; the vault's own record stays for user mode.
    private func moveFprintdAcceptanceToService(from vault: Vault, passcode: String, result: inout SystemModeFingers) async {
        guard let before = try? FprintdAcceptance.read(vault) else { return }
        do {
            let proof = try AuthError.mapped { try passcodes.sealedPasscodeSlot(passcode: passcode, mode: .system) }
            if let accepted = try await systemService.useFprintdFingers(true, proof: proof) {
                // What moved is what the vault had accepted; a change at fprintd since, which the
                // passcode just accepted, is said as any passcode says it.
                result.moved += before.fingers.filter(accepted.fingers.contains)
                if let change = before.change(to: accepted) { environment.interaction.notify(FprintdConsent.told(change.summary)) }
            }
        } catch {
            let reason = (error as? SystemServiceError).map { AuthError.from(systemService: $0).message } ?? AuthError.from(error).message
            result.notMoved.append(
                .init(
                    finger: nil,
                    reason: "fingerlockd does not take fprintd's fingers for this vault: \(reason) `fingerlock enroll --reader fprintd` tries again.")
            )
        }
    }

    /// `system disable`: the passcode through fingerlockd, then the fingers it keeps come back
    /// sealed into the vault, then a user-mode slot for the passcode, then the service forgets the
    /// vault. A finger that cannot come back stops it before anything changed.
    public func disableSystemMode() async throws -> SystemModeFingers {
        guard passcodes.hasPasscode else { throw AuthError.passcodeNotSet }
        guard environment.vaultMode == .system else { throw AuthError(.invalidInput, "This vault is not in system mode.") }
        try unlock.requirePasscodeSource()
        let (vault, passcode) = try await unlock.promptForPasscode(reason: "move this vault back to user mode", typedAhead: "")
        defer { vault.close() }
        environment.forgetRecordedHeader()
        var result = SystemModeFingers()
        let storeID = try environment.recordedStoreID
        let listed = try environment.systemCall { try systemService.fingers(vault: storeID) }
        // fprintd's fingers are fprintd's: the vault takes them again in user mode (the set the
        // service accepted, sealed in the vault); only templates come back.
        let fromFprintd = listed.filter { $0.reader.driver == FprintdDevice.driver }
        let kept = listed.filter { $0.reader.driver != FprintdDevice.driver }
        if let device = fromFprintd.first?.reader.deviceID {
            let accepted = AcceptedFingers(device: device, fingers: fromFprintd.map(\.finger))
            try FprintdAcceptance.write(accepted, to: vault)
            result.moved += accepted.fingers
        }
        // One key derivation proves the passcode for the fingers and for forgetting the vault.
        let proof = try AuthError.mapped { try passcodes.sealedPasscodeSlot(passcode: passcode, mode: .system) }
        if !kept.isEmpty {
            let prints = try kept.map { finger in try environment.systemCall { try systemService.exportPrint(finger.finger, proof: proof) } }
            let store = VaultPrintStore(vault: vault)
            for print in prints {
                try AuthError.mapped { try store.save(print) }
                result.moved.append(print.finger)
            }
        }
        // Bound to the TPM in system mode, bound to it here too (this process must reach it then).
        let binding = try AuthError.mapped { TPMBoundSlot.binding(of: try vault.passcodeSlotSealed) }
        try AuthError.mapped {
            try passcodes.movePasscodeSlot(
                of: vault, from: .system, to: environment.custody(for: .user).passcodeSealer(binding: binding),
                passcode: passcode)
        }
        // The vault is in user mode now; a service that cannot forget it keeps an unused secret.
        do {
            try systemService.forgetVault(proof)
        } catch {
            let why = (error as? SystemServiceError).map { AuthError.from(systemService: $0).message } ?? "\(error)"
            result.warning = "The vault is in user mode, but fingerlockd could not forget it: \(why)"
        }
        return result
    }
}
