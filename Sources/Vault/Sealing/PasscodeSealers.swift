/// The sealers a caller can open passcode slots with, one per mode: the vault picks the one for the
/// mode it records. Handed in per call (an open, a restore's staging), never kept in the vault.
public struct PasscodeSealers: Sendable {
    private let sealers: [any PasscodeSlotSealer]

    /// `sealers`, the first of each mode counting.
    public init(_ sealers: [any PasscodeSlotSealer]) {
        self.sealers = sealers
    }

    /// The vault's own sealer only: a system-mode slot then opens with the recovery key alone.
    public static let vaultOnly = PasscodeSealers([VaultPasscodeSealer()])

    /// The sealer for a slot recorded in `mode`.
    func sealer(for mode: VaultMode) throws(VaultError) -> any PasscodeSlotSealer {
        guard let sealer = sealers.first(where: { $0.mode == mode }) else {
            throw VaultError(
                .sealerUnavailable,
                "This vault is in \(mode) mode and its passcode slot can be opened only through what sealed it, "
                    + "which this program was not given. The recovery key opens the vault without it.")
        }
        return sealer
    }
}
