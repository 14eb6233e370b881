public import AuthCore

/// Where fingerlockd keeps the TPM failures its callers have standing (`TPMFailureLedger`). Stores
/// and never decides: `TPMFailureShares` decides, `ServiceCore` hosts it.
public protocol TPMFailureStore: Sendable {
    /// Runs `body` holding the ledger alone (against every other thread and process that uses this
    /// store), with the ledger as written and a `save` that writes one durably before it returns.
    /// The host keeps the TPM's judgement inside `body`, so no attempt is judged between its check
    /// and its charge.
    func exclusively<T: Sendable>(
        _ body: (_ ledger: TPMFailureLedger, _ save: (TPMFailureLedger) throws -> Void) throws -> T
    ) throws -> T
}
