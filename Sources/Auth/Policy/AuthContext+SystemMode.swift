import AuthCore
public import Fingerprint
import Foundation
import Synchronization
public import Vault

/// System mode (fingerlockd holds a per-vault secret entangled into the passcode slot and counts the
/// passcode attempts): moving a vault in and out, and what it changes for unlocking.
extension AuthContext {
    /// The vault's mode as recorded (unauthenticated; the slot-table MAC checks it at unlock).
    /// A vault that cannot be read is treated as user mode here; opening it reports the problem.
    public var vaultMode: VaultMode {
        guard passcodes.hasPasscode, let header = try? recordedVaultHeader() else { return .user }
        return header.mode
    }

    /// The store id (unauthenticated, like the mode): from the header already read for the mode,
    /// so a system-mode command reads the database once before the key is known, not twice.
    var recordedStoreID: UUID {
        get throws { try recordedVaultHeader().storeID }
    }

    /// The header, read on first use and kept (see `recordedHeader`).
    private func recordedVaultHeader() throws -> VaultHeader {
        if let known = recordedHeader.withLock({ $0 }) { return known }
        let header = try Self.vaultCall { try passcodes.header() }
        recordedHeader.withLock { $0 = header }
        return header
    }

    var systemModeTouch: AuthError {
        AuthError(
            .biometryNotAvailable, "System mode: the key is kept by fingerlockd, never in your keyring.",
            unavailability: .systemMode)
    }

    /// `system enable`: the current passcode, then fingerlockd registers the vault and seals the new
    /// passcode slot; the user-mode slot is destroyed in the same transaction. Whatever this vault
    /// left in the user's keyring is removed. Then each finger enrolled in user mode moves to the
    /// service (proven with the new slot) and leaves the vault; one the service refuses stays in
    /// the vault (for user mode) and is reported, to be enrolled again through the service.
    @discardableResult
    public func enableSystemMode() async throws -> SystemModeFingers {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        guard vaultMode == .user else { throw AuthError(.invalidInput, "This vault is already in system mode.") }
        try requirePasscodeSource()
        try refuseDuringPasscodeDelay()
        try requireServiceBeforeEnabling()
        let (vault, passcode) = try await promptForPasscode(reason: "move this vault into system mode", typedAhead: "")
        defer { vault.close() }
        recordedHeader.withLock { $0 = nil }
        // The header may have lagged behind a parallel `system enable`; the opened vault says.
        guard try Self.vaultCall({ try vault.mode }) == .user else {
            throw AuthError(.invalidInput, "This vault is already in system mode.")
        }
        let storeID = try Self.vaultCall { try vault.storeID }
        try systemCall { try systemService.register(vault: storeID) }
        // The user-mode slot goes in the same transaction as the system-mode slot comes. The
        // service holds no key until the first passcode unlock.
        try Self.vaultCall {
            try passcodes.movePasscodeSlot(
                of: vault, from: .user, to: custody(for: .system).passcodeSealer, passcode: passcode)
        }
        forgetUserKeyringEntries(of: vault)
        let moved = await moveFingersToService(from: vault, passcode: passcode)
        // Last, after the moves' passcode proofs (which clear the service's counters): the settings,
        // and the counts user mode has now (parallel runs may have added to them since the
        // passcode), which the service's may never be below.
        tellServicePolicy(of: vault, counts: try? dependencies.attempts.read())
        return moved
    }

    /// fingerlockd must answer before anyone types the passcode for it. Its unreachable line ends
    /// with the recovery key's way in, which is for a vault already in system mode: this one is still
    /// in user mode, where the passcode alone opens it.
    private func requireServiceBeforeEnabling() throws {
        do {
            _ = try systemService.status(vault: try recordedStoreID)
        } catch let error as SystemServiceError {
            guard case .unreachable(let line) = error.code else { throw Self.authError(systemService: error) }
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
            result.notMoved = [.init(finger: nil, reason: Self.authError(error).message)]
            return result
        }
        guard !prints.isEmpty else { return result }
        let proof: SealedPasscodeSlot
        do {
            proof = try Self.vaultCall { try passcodes.sealedPasscodeSlot(passcode: passcode, mode: .system) }
        } catch {
            result.notMoved = prints.map { .init(finger: $0.finger, reason: Self.authError(error).message) }
            return result
        }
        for print in prints {
            do {
                try await systemService.importPrint(print, proof: proof)
            } catch let error as SystemServiceError {
                result.notMoved.append(.init(finger: print.finger, reason: Self.authError(systemService: error).message))
                continue
            } catch {
                result.notMoved.append(.init(finger: print.finger, reason: Self.authError(error).message))
                continue
            }
            // The service keeps it now; a copy left in the vault would only serve user mode again.
            _ = try? store.delete(print.finger, on: print.reader)
            result.moved.append(print.finger)
        }
        return result
    }

    /// `system disable`: the passcode through fingerlockd, then the fingers it keeps come back
    /// sealed into the vault, then a user-mode slot for the passcode, then the service forgets the
    /// vault. A finger that cannot come back stops it before anything changed.
    public func disableSystemMode() async throws -> SystemModeFingers {
        guard passcodes.hasPasscode else { throw passcodeNotSet }
        guard vaultMode == .system else { throw AuthError(.invalidInput, "This vault is not in system mode.") }
        try requirePasscodeSource()
        let (vault, passcode) = try await promptForPasscode(reason: "move this vault back to user mode", typedAhead: "")
        defer { vault.close() }
        recordedHeader.withLock { $0 = nil }
        var result = SystemModeFingers()
        let storeID = try recordedStoreID
        let kept = try systemCall { try systemService.fingers(vault: storeID) }
        // One key derivation proves the passcode for the fingers and for forgetting the vault.
        let proof = try Self.vaultCall { try passcodes.sealedPasscodeSlot(passcode: passcode, mode: .system) }
        if !kept.isEmpty {
            let prints = try kept.map { finger in try systemCall { try systemService.exportPrint(finger.finger, proof: proof) } }
            let store = VaultPrintStore(vault: vault)
            for print in prints {
                try Self.vaultCall { try store.save(print) }
                result.moved.append(print.finger)
            }
        }
        try Self.vaultCall {
            try passcodes.movePasscodeSlot(
                of: vault, from: .system, to: custody(for: .user).passcodeSealer, passcode: passcode)
        }
        // The vault is in user mode now; a service that cannot forget it keeps an unused secret.
        do {
            try systemService.forgetVault(proof)
        } catch {
            let why = (error as? SystemServiceError).map { Self.authError(systemService: $0).message } ?? "\(error)"
            result.warning = "The vault is in user mode, but fingerlockd could not forget it: \(why)"
        }
        return result
    }
}

/// What `system enable` or `system disable` did with the enrolled fingers.
public struct SystemModeFingers: Sendable, Equatable {
    /// A finger that stayed where it was (nil: the vault's fingers could not even be read).
    public struct NotMoved: Sendable, Equatable {
        public var finger: Finger?
        public var reason: String
    }

    public var moved: [Finger] = []
    public var notMoved: [NotMoved] = []
    /// `disable`: the service could not forget the vault (it is in user mode all the same).
    public var warning: String?

    public init() {}
}
