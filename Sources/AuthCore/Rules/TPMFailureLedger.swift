public import FoundationEssentials

/// The TPM failures fingerlockd's callers may still have standing, oldest first: one charge per
/// passcode the TPM was asked to judge, written before it is asked and taken out again only when
/// the TPM certainly counted nothing (the passcode was right, or it was refused before any
/// authorization). A charge left by a crash, or one the TPM has since forgotten, is taken out by
/// `TPMFailureShares.reconciled`: too many charges only ever make callers wait, never spend more.
public struct TPMFailureLedger: Codable, Equatable, Sendable {
    public struct Charge: Codable, Equatable, Sendable {
        /// Tells this charge from another of the same account and time, to take it out.
        public var id: UUID
        /// Whom the failure counts against: a login with its subordinate uids, as the service's
        /// limits count them.
        public var account: String
        public var countedAt: Date

        public init(id: UUID, account: String, countedAt: Date) {
            self.id = id
            self.account = account
            self.countedAt = countedAt
        }
    }

    public var charges: [Charge]

    public init(charges: [Charge] = []) {
        self.charges = charges
    }

    /// The ledger without the charge `id` (the TPM counted nothing for it).
    public func removing(_ id: UUID) -> TPMFailureLedger {
        TPMFailureLedger(charges: charges.filter { $0.id != id })
    }

    /// How many charges `account` has standing.
    public func standing(_ account: String) -> Int {
        charges.count(where: { $0.account == account })
    }
}
