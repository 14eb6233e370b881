internal import CTSS2
import Glibc

/// One ESAPI context over one TCTI: the owner of both C objects, finalized together. Made per
/// operation and used by one thread (not Sendable); every transient object it loads is flushed by
/// its user before it goes, since swtpm and `/dev/tpm0` keep only three.
final class ESAPIConnection {
    private var tcti: OpaquePointer?
    private(set) var context: OpaquePointer?

    init(tcti configuration: String) throws(TPMError) {
        if let problem = Self.deviceProblem(configuration) { throw problem }
        try TSSLibrary.require()
        var tcti: OpaquePointer?
        let loaded = tss.Tss2_TctiLdr_Initialize(configuration, &tcti)
        guard loaded == TSS2_RC_SUCCESS, tcti != nil else {
            throw TPMError(.unreachable, "No TPM answers at \(configuration) (\(ESAPIConnection.decode(loaded))).")
        }
        self.tcti = tcti
        var context: OpaquePointer?
        let initialized = tss.Esys_Initialize(&context, tcti, nil)
        guard initialized == TSS2_RC_SUCCESS, context != nil else {
            tss.Tss2_TctiLdr_Finalize(&self.tcti)
            throw TPMError(.unreachable, "The TPM at \(configuration) could not be opened (\(ESAPIConnection.decode(initialized))).")
        }
        self.context = context
    }

    deinit {
        tss.Esys_Finalize(&context)
        tss.Tss2_TctiLdr_Finalize(&tcti)
    }

    /// `device:PATH` (or the bare path) checked before libtss2 tries it, whose own error is the same
    /// for a missing device and a refused one.
    static func deviceProblem(_ configuration: String) -> TPMError? {
        var path = configuration
        if path.hasPrefix("device:") { path.removeFirst("device:".count) } else if !path.hasPrefix("/") { return nil }
        if path.isEmpty { path = "/dev/tpm0" }
        if access(path, F_OK) != 0 {
            return TPMError(.unreachable, "This machine has no TPM at \(path) (none, or its driver is not loaded).")
        }
        if access(path, R_OK | W_OK) != 0 {
            return TPMError(
                .unreachable,
                "\(path) is there but not open to you: the TPM is for members of the group that owns it"
                    + " (`sudo usermod -aG tss $USER`, then log in again).")
        }
        return nil
    }

    /// The TSS's own text for a response code.
    static func decode(_ rc: TSS2_RC) -> String {
        guard case .success = TSSLibrary.shared, let text = tss.Tss2_RC_Decode(rc) else { return "0x" + String(rc, radix: 16) }
        return "0x" + String(rc, radix: 16) + ": " + String(cString: text)
    }
}
